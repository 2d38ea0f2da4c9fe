import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { scanDatabase, scanTexts } from './secret-scan.js';

describe('secret scan helpers (for the end-to-end secrets test)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    await t.db.exec(`INSERT INTO efa.runs (run_id, job_name, source, job_hash, status, error) VALUES (1, 'demo', 'demo', 'h', 'failed', 'no reply from https://u:hunter2hunter2@h/efa')`);
  });
  afterAll(async () => t.dispose());

  it('finds a secret in any efa table, masked in the report, and nothing where it is absent', async () => {
    const found = await scanDatabase(t.db.kysely, ['hunter2hunter2', 'not-anywhere-123']);
    expect(found).toEqual([{ where: 'efa.runs', secret: 'hunter2hunter2', context: expect.stringContaining('https://u:<SECRET>@h/efa') as unknown }]);
  });

  it('finds a secret in named output channels', () => {
    expect(scanTexts({ stdout: '{"ok":true}', stderr: 'key=abcdef123 failed' }, ['abcdef123'])).toEqual([
      { where: 'stderr', secret: 'abcdef123', context: 'key=<SECRET> failed' },
    ]);
  });
});
