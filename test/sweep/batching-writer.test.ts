import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { relationCounts } from '../../src/db/ledger.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import { pins, toPinRow, type PinRow } from '../../src/relations/index.js';
import { createBatchingWriter } from '../../src/sweep/context.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

const stop = (id: string, lon = 9.18): PinRow => toPinRow({ type: 'STOP', id, name: `Stop ${id}`, coord: { lon, lat: 48.78 }, motTypes: [5], attrs: {} });

describe('the batching writer: waiting tiles share a transaction and one merge of their rows', () => {
  let t: TestDb;
  let n = 0;
  const newRun = async (): Promise<OpenedRun> => {
    n += 1;
    return createRun(t.db.kysely, { jobName: `w${n}`, jobHash: 'h', scope: { source: `W${n}`, region: '{}', regionMax: [0, 0] as const, relations: {} }, options: {} });
  };
  const stored = async (source: string): Promise<string[]> =>
    (await sql<{ id: string }>`SELECT id FROM efa.pins WHERE source = ${source} ORDER BY id`.execute(t.db.kysely)).rows.map((r) => r.id);
  const seenSets = async (run: OpenedRun): Promise<number> =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.run_seen_sets WHERE run_id = ${run.runId}::bigint`.execute(t.db.kysely)).rows[0]?.n ?? 0;

  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  it('merges the rows of waiting items once, then runs each item', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const ran: string[] = [];
    const tiles = [['a', 'b'], ['c'], ['d', 'e', 'f']];
    await Promise.all(tiles.map((ids, i) => write.rows(pins, ids.map((id) => stop(id)), async () => void ran.push(`tile ${i}`))));
    expect(ran.sort()).toEqual(['tile 0', 'tile 1', 'tile 2']);
    expect(await stored(run.source)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // The first item drains alone; the two that waited meanwhile were merged as one batch.
    expect(await seenSets(run)).toBe(2);
    expect((await relationCounts(t.db.kysely, run.runId)).pins).toEqual({ inserted: 6, updated: 0, deleted: 0, unchanged: 0 });
  });

  it('when the merged rows fail, each item merges its own: only the item with the bad row fails', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    // A key longer than a b-tree entry may be (2,704 bytes, and random, so compression cannot
    // shrink it): the unique index refuses it.
    const bad = { ...stop('bad'), pin_key: `STOP:${randomBytes(6000).toString('hex')}`, id: 'bad' };
    const first = write.rows(pins, [stop('p1')], async () => 'first');
    const good = write.rows(pins, [stop('p2'), stop('p3')], async () => 'good');
    const poisoned = write.rows(pins, [stop('p4'), bad], async () => 'poisoned');
    expect(await first).toBe('first');
    expect(await good).toBe('good');
    await expect(poisoned).rejects.toThrow();
    expect(await stored(run.source)).toEqual(['p1', 'p2', 'p3']);
    expect((await relationCounts(t.db.kysely, run.runId)).pins?.inserted).toBe(3);
  });

  it('an item whose own statements fail is rolled back alone; the rows merged for the batch stay', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const first = write.rows(pins, [stop('q1')], async () => 1);
    const failing = write.rows(pins, [stop('q2')], async (tx) => {
      await sql`SELECT 1 / 0`.execute(tx.kysely);
    });
    const after = write.rows(pins, [stop('q3')], async () => 3);
    expect(await first).toBe(1);
    await expect(failing).rejects.toThrow(/division by zero/);
    expect(await after).toBe(3);
    // q2's rows came from the server and are stored; its unit (tile) is not recorded done, so it is fetched again.
    expect(await stored(run.source)).toEqual(['q1', 'q2', 'q3']);
  });
});
