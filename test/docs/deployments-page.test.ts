/**
 * The catalogue page (docs/deployments.md) and the dialect facts' entries (docs/dialects.md) are
 * generated from deployments/*.json by `npm run docs:deployments`, like the exit-code tables: a
 * change to an entry without the pages regenerated fails here.
 */
import { describe, expect, it } from 'vitest';
import { GENERATED_PAGES, renderGeneratedPage } from '../../scripts/docs-deployments.js';
import { loadDeployments } from '../../src/deployments/load.js';

describe('the generated catalogue pages', () => {
  for (const { name } of GENERATED_PAGES) {
    it(`docs/${name} is current with deployments/ (npm run docs:deployments)`, async () => {
      const { current, rendered } = await renderGeneratedPage(name);
      expect(current).toBe(rendered);
    });
  }

  it('lists every entry with its sources', async () => {
    const { current } = await renderGeneratedPage('deployments.md');
    for (const entry of loadDeployments()) {
      expect(current).toContain(`### ${entry.id}\n`);
      expect(current).toContain(`| [\`${entry.id}\`](#${entry.id}) |`);
      for (const refs of Object.values(entry.sources)) for (const ref of refs) expect(current).toContain(ref.replaceAll('|', '\\|').replaceAll('<', '&lt;'));
    }
  });
});
