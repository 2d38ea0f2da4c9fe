import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { recordTiles, type TileRecord } from '../../src/db/ledger.js';
import { pendingTiles } from '../../src/db/plan-reads.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import type { RunScope } from '../../src/relations/index.js';
import { inStratum, makeTile } from '../../src/tiling/geo.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * A CoordInfo tile whose request asked for some types only (a stratum of a pilot sweep, sql/018)
 * proves absence for those types alone: efa.gone_pins owns a pin by a done tile only when the
 * tile's types are NULL (every type) or hold the pin's type.
 */
const REGION = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] };

describe('type-filtered tiles in the ledger and the deletion scope', () => {
  let t: TestDb;
  let n = 0;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  /** A source with a stop and a POI stored by a first run, and a second run that saw neither; returns the second. */
  async function world(): Promise<{ source: string; two: OpenedRun }> {
    const k = t.db.kysely;
    const source = `s${++n}`;
    const scope: RunScope = {
      source,
      region: JSON.stringify(REGION),
      regionMax: [10, 10],
      relations: { pins: { types: ['STOP', 'POI_POINT'], any: false, inclMOT: null, exclMOT: null } } as RunScope['relations'],
    };
    const one = await createRun(k, { jobName: source, jobHash: 'h', scope, options: {} });
    const two = await createRun(k, { jobName: source, jobHash: 'h', scope, options: {} });
    await sql`
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
      VALUES (${source}, 'STOP:1', 'STOP', '1', 'a stop', ST_SetSRID(ST_MakePoint(2, 2), 4326), 'h', ${one.runId}::bigint, ${one.runId}::bigint),
             (${source}, 'POI_POINT:2', 'POI_POINT', '2', 'a shop', ST_SetSRID(ST_MakePoint(3, 3), 4326), 'h', ${one.runId}::bigint, ${one.runId}::bigint)`.execute(k);
    return { source, two };
  }

  const done = (types: readonly string[] | undefined): TileRecord => {
    const tile = inStratum(makeTile([0, 0, 10, 10], 0), types);
    return { operation: 'coordInfo', tileId: tile.id, depth: 0, bbox: tile.bbox, types: tile.types, status: 'done', attempts: 1, hits: 0, durationMs: 0 };
  };

  async function gone(run: OpenedRun): Promise<string[]> {
    const r = await sql<{ key: string }>`SELECT key FROM efa.gone_pins(${run.runId}::bigint) ORDER BY key`.execute(t.db.kysely);
    return r.rows.map((x) => x.key);
  }

  it('a done tile filtered to STOP makes the missing stop gone, not the missing POI', async () => {
    const { two } = await world();
    await recordTiles(t.db.kysely, two.runId, [done(['STOP'])]);
    expect(await gone(two)).toEqual(['STOP:1']);
  });

  it('a done tile of POI_POINT makes the POI gone; with the STOP tile of the same box, both', async () => {
    const { two } = await world();
    await recordTiles(t.db.kysely, two.runId, [done(['POI_POINT'])]);
    expect(await gone(two)).toEqual(['POI_POINT:2']);
    // The same box as a unit of a second stratum: its own row (the id names the stratum).
    await recordTiles(t.db.kysely, two.runId, [done(['STOP'])]);
    expect(await gone(two)).toEqual(['POI_POINT:2', 'STOP:1']);
    const rows = await sql<{ tile_id: string; types: string[] }>`
      SELECT tile_id, types FROM efa.run_tiles WHERE run_id = ${two.runId}::bigint ORDER BY tile_id`.execute(t.db.kysely);
    expect(rows.rows).toEqual([
      { tile_id: '0/0,0,10,10:POI_POINT', types: ['POI_POINT'] },
      { tile_id: '0/0,0,10,10:STOP', types: ['STOP'] },
    ]);
  });

  it('a done tile of every type (types NULL, as before) makes both gone', async () => {
    const { two } = await world();
    await recordTiles(t.db.kysely, two.runId, [done(undefined)]);
    expect(await gone(two)).toEqual(['POI_POINT:2', 'STOP:1']);
    const rows = await sql<{ types: string[] | null }>`SELECT types FROM efa.run_tiles WHERE run_id = ${two.runId}::bigint`.execute(t.db.kysely);
    expect(rows.rows).toEqual([{ types: null }]);
  });

  it('a done tile of a stratum of two types proves absence for both', async () => {
    const { two } = await world();
    await recordTiles(t.db.kysely, two.runId, [done(['STOP', 'POI_POINT'])]);
    expect(await gone(two)).toEqual(['POI_POINT:2', 'STOP:1']);
  });

  it('a pending tile keeps its types through a resume', async () => {
    const { two } = await world();
    const typed = inStratum(makeTile([0, 0, 5, 5], 1, '0/0,0,10,10:STOP'), ['STOP']);
    const plain = makeTile([5, 5, 10, 10], 1, '0/0,0,10,10');
    await recordTiles(t.db.kysely, two.runId, [typed, plain].map((tile) => ({
      operation: 'coordInfo', tileId: tile.id, parentId: tile.parentId, depth: tile.depth, bbox: tile.bbox, types: tile.types, status: 'pending' as const, attempts: 0, hits: 0, durationMs: 0,
    })));
    const pending = await pendingTiles(t.db.kysely, two.runId);
    expect(pending).toEqual([
      { id: '1/0,0,5,5:STOP', parentId: '0/0,0,10,10:STOP', depth: 1, bbox: [0, 0, 5, 5], types: ['STOP'] },
      { id: '1/5,5,10,10', parentId: '0/0,0,10,10', depth: 1, bbox: [5, 5, 10, 10] },
    ]);
    expect(await gone(two)).toEqual([]);
  });

  it('efa.tile_coverage shows each leaf tile\'s types', async () => {
    const { source, two } = await world();
    await recordTiles(t.db.kysely, two.runId, [done(['STOP']), done(undefined)]);
    await sql`REFRESH MATERIALIZED VIEW efa.tile_coverage`.execute(t.db.kysely);
    const rows = await sql<{ tile_id: string; types: string[] | null }>`
      SELECT tile_id, types FROM efa.tile_coverage WHERE job_name = ${source} ORDER BY tile_id`.execute(t.db.kysely);
    expect(rows.rows).toEqual([
      { tile_id: '0/0,0,10,10', types: null },
      { tile_id: '0/0,0,10,10:STOP', types: ['STOP'] },
    ]);
  });
});
