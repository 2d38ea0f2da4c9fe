import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * flatgeobuf's optional OpenLayers (16 MB, and a geotiff beta with it) is never loaded by efa-sync: an
 * install from the checkout takes an empty package in its place (package.json `overrides`, issue 30 point 9).
 */
describe('what an install from the checkout carries', () => {
  it('resolves flatgeobuf\'s OpenLayers to an empty package, and no geotiff', async () => {
    const fromFlatgeobuf = createRequire(createRequire(import.meta.url).resolve('flatgeobuf/package.json'));
    const ol = JSON.parse(await readFile(fromFlatgeobuf.resolve('ol/package.json'), 'utf8')) as { name?: string };
    expect(ol.name).toBe('empty-npm-package');
    expect(() => fromFlatgeobuf.resolve('geotiff/package.json')).toThrow();
  });
});
