import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../src/db/index.js';
import { HISTORY_RELATIONS, pruneHistoryFor } from '../../src/history/index.js';
import { jobSchema } from '../../src/job/schema.js';
import { runCli } from '../helpers/cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/** `efa-sync history prune`, the job's history.keepDays, and the relation list TS and SQL share. */
describe('history retention', () => {
  let target: TestDbUrl;
  beforeAll(async () => {
    target = await createTestDbUrl();
    const db = await openDb(target.url);
    try {
      await migrate(db);
      // Three versions of one stop: two superseded (ended 2026-01-02 and 2026-02-01), one current.
      await db.exec(`
        INSERT INTO efa.runs (run_id, job_name, job_hash, source, started_at) VALUES
          (1, 'j', 'h', 's', '2026-01-01'), (2, 'j', 'h', 's', '2026-01-02'), (3, 'j', 'h', 's', '2026-02-01');
        INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
          VALUES ('s', 'STOP:1', 'STOP', '1', 'Alt', 'SRID=4326;POINT(9.1 48.7)', 'a', 1, 1);
        UPDATE efa.pins SET name = 'Mitte', content_hash = 'b', changed_run = 2 WHERE pin_key = 'STOP:1';
        UPDATE efa.pins SET name = 'Neu', content_hash = 'c', changed_run = 3 WHERE pin_key = 'STOP:1';`);
      const r = await sql<{ relation: string }>`SELECT relation FROM efa.history_relations()`.execute(db.kysely);
      expect(r.rows.map((x) => x.relation)).toEqual([...HISTORY_RELATIONS]);
    } finally {
      await db.close();
    }
  }, 120_000);
  afterAll(async () => target?.drop());

  it('a job\'s history.keepDays prunes what ended more than keepDays before the run; without it nothing', async () => {
    const db = await openDb(target.url);
    try {
      // Another stop, changed once in June 2025 (its first version ended 2025-06-02).
      await db.exec(`
        INSERT INTO efa.runs (run_id, job_name, job_hash, source, started_at) VALUES (10, 'j', 'h', 's', '2025-06-01'), (11, 'j', 'h', 's', '2025-06-02');
        INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
          VALUES ('s', 'STOP:2', 'STOP', '2', 'Erst', 'SRID=4326;POINT(9.2 48.7)', 'a', 10, 10);
        UPDATE efa.pins SET name = 'Dann', content_hash = 'b', changed_run = 11 WHERE pin_key = 'STOP:2';`);
      expect(await pruneHistoryFor(db.kysely, undefined, new Date('2030-01-01T00:00:00Z'))).toBeUndefined();
      // 2025-06-20 less 30 days is 2025-05-21: nothing ended before.
      expect(await pruneHistoryFor(db.kysely, { keepDays: 30 }, new Date('2025-06-20T00:00:00Z'))).toMatchObject({ pins: 0 });
      // 2025-07-10 less 30 days is 2025-06-10: STOP:2's first version goes; STOP:1's (ended in 2026) stay.
      expect(await pruneHistoryFor(db.kysely, { keepDays: 30 }, new Date('2025-07-10T00:00:00Z'))).toMatchObject({ pins: 1, lines: 0 });
      const two = await sql<{ name: string }>`SELECT name FROM efa.pins_versions('STOP:2')`.execute(db.kysely);
      expect(two.rows.map((r) => r.name)).toEqual(['Dann']);
      const one = await sql<{ name: string }>`SELECT name FROM efa.pins_versions('STOP:1')`.execute(db.kysely);
      expect(one.rows.map((r) => r.name)).toEqual(['Alt', 'Mitte', 'Neu']);
    } finally {
      await db.close();
    }
  });

  it('prunes the versions that ended before the date, never the current row', async () => {
    const r = await runCli(['history', 'prune', '--before', '2026-01-15', '--db', target.url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { before: string; total: number; pruned: Record<string, number> };
    expect(out).toMatchObject({ before: '2026-01-15T00:00:00.000Z', total: 1, pruned: { pins: 1, notices: 0 } });
    // Up to now (a time in the future is refused: it would prune every superseded version unasked).
    const again = await runCli(['history', 'prune', '--before', new Date().toISOString(), '--db', target.url, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 1, pruned: { pins: 1 } });
    const db = await openDb(target.url);
    try {
      const left = await sql<{ name: string; ended_by: string | null }>`SELECT name, ended_by FROM efa.pins_versions('STOP:1')`.execute(db.kysely);
      expect(left.rows).toEqual([{ name: 'Neu', ended_by: null }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('refuses a --before that is not a date, naming the option, before opening the database', async () => {
    const r = await runCli(['history', 'prune', '--before', 'last tuesday', '--db', 'pglite:/nonexistent/never-opened']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--before');
    expect(r.stderr).toContain('2026-03-01');
  });

  it('takes history.keepDays in a job, at least 1 day', () => {
    const base = { name: 'j', baseUrl: 'http://127.0.0.1:9/efa', region: { bbox: [9, 48, 9.1, 48.1] }, rateLimit: { requestsPerSecond: 1, concurrency: 1 }, sweeps: {} };
    expect(jobSchema.parse({ ...base, history: { keepDays: 365 } }).history).toEqual({ keepDays: 365 });
    const bad = jobSchema.safeParse({ ...base, history: { keepDays: 0 } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('history.keepDays');
  });
});
