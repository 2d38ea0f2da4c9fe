import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { relationCounts } from '../../src/db/ledger.js';
import { createRun, LeaseLostError, type OpenedRun } from '../../src/db/runs.js';
import { pins, toPinRow, type PinRow } from '../../src/relations/index.js';
import { createBatchingWriter } from '../../src/db/batching-writer.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

const stop = (id: string, lon = 9.18): PinRow => toPinRow({ type: 'STOP', id, name: `Stop ${id}`, coord: { lon, lat: 48.78 }, motTypes: [5], attrs: {} });

describe('the batching writer: waiting tiles share a transaction and one merge of their rows', () => {
  let t: TestDb;
  let n = 0;
  const newRun = async (): Promise<OpenedRun> => {
    n += 1;
    return createRun(t.db.kysely, { jobName: `w${n}`, jobHash: 'h', scope: { source: `W${n}`, region: '{}', regionMax: [0, 0] as const, relations: {} }, options: {} });
  };
  const newRunOf = (source: string): Promise<OpenedRun> =>
    createRun(t.db.kysely, { jobName: `${source}-again`, jobHash: 'h', scope: { source, region: '{}', regionMax: [0, 0] as const, relations: {} }, options: {} });
  const stored = async (source: string): Promise<string[]> =>
    (await sql<{ id: string }>`SELECT id FROM efa.pins WHERE source = ${source} ORDER BY id`.execute(t.db.kysely)).rows.map((r) => r.id);
  const seenSets = async (run: OpenedRun): Promise<number> =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.run_seen_sets WHERE run_id = ${run.runId}::bigint`.execute(t.db.kysely)).rows[0]?.n ?? 0;

  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  const tile = (id: string, status: 'done' | 'capped' = 'done') => ({ operation: 'coordInfo', tileId: id, depth: 0, status, attempts: 1, hits: 1, durationMs: 5 });
  const ledger = (id: string, status: 'done' | 'capped' = 'done') => ({ tile: tile(id, status), unit: id, rejects: [] });
  const recorded = async (run: OpenedRun): Promise<string[]> =>
    (
      await sql<{ t: string }>`SELECT tile_id || ':' || status AS t FROM efa.run_tiles WHERE run_id = ${run.runId}::bigint ORDER BY tile_id`.execute(t.db.kysely)
    ).rows.map((r) => r.t);

  it('merges the rows of waiting items once and records their tiles with them', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const tiles = [['a', 'b'], ['c'], ['d', 'e', 'f']];
    await Promise.all(tiles.map((ids, i) => write.rows(pins, ids.map((id) => stop(id)), ledger(`t${i}`))));
    expect(await stored(run.source)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(await recorded(run)).toEqual(['t0:done', 't1:done', 't2:done']);
    // The first item drains alone; the two that waited meanwhile were merged as one batch.
    expect(await seenSets(run)).toBe(2);
    expect((await relationCounts(t.db.kysely, run.runId)).pins).toEqual({ inserted: 6, updated: 0, deleted: 0, unchanged: 0 });
  });

  it("on a server, commits without waiting for the WAL flush, its own transactions alone; the run's end waits; PGlite always waits", async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const setting = async (tx: { kysely: typeof t.db.kysely }): Promise<string | undefined> =>
      (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(tx.kysely)).rows[0]?.synchronous_commit;
    // PGlite is inside the process: a crash of the process is the server's, and would lose them.
    expect(await write(setting)).toBe(t.db.kind === 'postgres' ? 'off' : 'on');
    // Another transaction (finishRun's among them) keeps the server's setting.
    expect(await t.db.transaction(setting)).toBe('on');
  });

  it('when the merged rows fail, each item writes its own: only the tile with the bad row fails, its record with it', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    // A key longer than a b-tree entry may be (2,704 bytes, and random, so compression cannot
    // shrink it): the unique index refuses it.
    const bad = { ...stop('bad'), pin_key: `STOP:${randomBytes(6000).toString('hex')}`, id: 'bad' };
    const first = write.rows(pins, [stop('p1')], ledger('first'));
    const good = write.rows(pins, [stop('p2'), stop('p3')], ledger('good'));
    const poisoned = write.rows(pins, [stop('p4'), bad], ledger('poisoned'));
    await first;
    await good;
    await expect(poisoned).rejects.toThrow();
    expect(await stored(run.source)).toEqual(['p1', 'p2', 'p3']);
    // The poisoned tile is not recorded: a resumed run asks it again, and p4 with it.
    expect(await recorded(run)).toEqual(['first:done', 'good:done']);
    expect((await relationCounts(t.db.kysely, run.runId)).pins?.inserted).toBe(3);
  });

  it('keeps the order it was given: a tile written twice in one batch ends as the later record', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const first = write.rows(pins, [stop('r1')], ledger('x'));
    // The tile answered again (a silent cap proved after it was judged): both wait in one batch.
    const again = [write.rows(pins, [stop('r2')], ledger('y', 'done')), write.rows(pins, [stop('r2'), stop('r3')], ledger('y', 'capped'))];
    await first;
    await Promise.all(again);
    expect(await recorded(run)).toEqual(['x:done', 'y:capped']);
    expect(await stored(run.source)).toEqual(['r1', 'r2', 'r3']);
  });

  it('a first-load COPY refused by a stored key rolls back to the group\'s or the item\'s savepoint and merges instead', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    // The source is empty: the writer expects new keys and COPYs.
    await write.rows(pins, [stop('k1')], ledger('k1'));
    // Another job of the source stores k2 and k4 meanwhile; this run's hint still says "all new".
    const other = await createRun(t.db.kysely, { jobName: `${run.source}-other`, jobHash: 'h', scope: { source: run.source, region: '{}', regionMax: [0, 0] as const, relations: {} }, options: {} });
    await createBatchingWriter(t.db, other).rows(pins, [stop('k2'), stop('k4')], ledger('other'));
    // Two items that wait together (one group, its savepoint), then one alone (its own savepoint).
    const first = write.rows(pins, [stop('k0')], ledger('k0'));
    const group = [write.rows(pins, [stop('k2'), stop('k3', 9.19)], ledger('g1')), write.rows(pins, [stop('k5')], ledger('g2'))];
    await first;
    await Promise.all(group);
    // All new again: the hint turns back to COPY, which k4 refuses in an item's own savepoint.
    await write.rows(pins, [stop('k7')], ledger('k7'));
    await write.rows(pins, [stop('k4', 9.2), stop('k6')], ledger('alone'));
    expect(await stored(run.source)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
    expect(await recorded(run)).toEqual(['alone:done', 'g1:done', 'g2:done', 'k0:done', 'k1:done', 'k7:done']);
    // The group was merged as one batch (one seen set), not item by item after a failure.
    expect(await seenSets(run)).toBe(5);
    // k2 was stored as this run found it (unchanged), k4 with another coordinate (updated).
    expect((await relationCounts(t.db.kysely, run.runId)).pins).toEqual({ inserted: 6, updated: 1, deleted: 0, unchanged: 1 });
    const k4 = await sql<{ lon: number }>`SELECT ST_X(geom) AS lon FROM efa.pins WHERE source = ${run.source} AND id = 'k4'`.execute(t.db.kysely);
    expect(k4.rows[0]?.lon).toBe(9.2);
  });

  it('a tile that kept no rows is recorded, alone or waiting with others, and an unchanged batch records its tiles once', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    await write.rows(pins, [], ledger('e0'));
    const first = write.rows(pins, [stop('e1')], ledger('e1'));
    const waiting = [write.rows(pins, [], ledger('e2')), write.rows(pins, [stop('e3')], ledger('e3'))];
    await first;
    await Promise.all(waiting);
    // The same rows under a second run of the source: unchanged, looked up, not written.
    const again = await newRunOf(run.source);
    const write2 = createBatchingWriter(t.db, again);
    const firstAgain = write2.rows(pins, [stop('e1')], ledger('f1'));
    await Promise.all([firstAgain, write2.rows(pins, [stop('e3')], ledger('f2')), write2.rows(pins, [], ledger('f3'))]);
    expect(await recorded(run)).toEqual(['e0:done', 'e1:done', 'e2:done', 'e3:done']);
    expect(await recorded(again)).toEqual(['f1:done', 'f2:done', 'f3:done']);
    expect((await relationCounts(t.db.kysely, again.runId)).pins).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 2 });
  });

  it('a run whose lease another process took commits nothing more', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    await write.rows(pins, [stop('l1')], ledger('l1'));
    await sql`UPDATE efa.runs SET lease = gen_random_uuid() WHERE run_id = ${run.runId}::bigint`.execute(t.db.kysely);
    await expect(write.rows(pins, [stop('l2')], ledger('l2'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await stored(run.source)).toEqual(['l1']);
    expect(await recorded(run)).toEqual(['l1:done']);
  });

  it('an item of its own statements that fails is rolled back alone; the tiles merged for the batch stay', async () => {
    const run = await newRun();
    const write = createBatchingWriter(t.db, run);
    const first = write.rows(pins, [stop('q1')], ledger('q1'));
    const failing = write(async (tx) => {
      await sql`SELECT 1 / 0`.execute(tx.kysely);
    });
    const rows = [write.rows(pins, [stop('q2')], ledger('q2')), write.rows(pins, [stop('q3')], ledger('q3'))];
    const after = write(async () => 3);
    await first;
    await expect(failing).rejects.toThrow(/division by zero/);
    await Promise.all(rows);
    expect(await after).toBe(3);
    expect(await stored(run.source)).toEqual(['q1', 'q2', 'q3']);
    expect(await recorded(run)).toEqual(['q1:done', 'q2:done', 'q3:done']);
  });
});
