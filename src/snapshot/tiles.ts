import type { SnapshotTileRow } from '../db/snapshots.js';
import type { EfaResult, Pin } from '../efa/index.js';
import { errorText, isFatal } from '../errors.js';
import type { ResolvedRegion } from '../job/index.js';
import { createCapDetector, createSplitMemory, effectiveMax, inRegion, observeAnswer, ownsPoint, splitTile, type BBox, type Tile } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import { redactText } from '../util/redact.js';
import { drainQueue } from '../sweep/queue.js';
import { judgeBoxAnswer } from '../sweep/trust.js';

/**
 * One snapshot's box sweep, for vehicles and parking alike: each tile is requested once; an answer
 * as large as `max` (every object counts, whatever its kind, rejects included) is split where its
 * objects lie, like the nightly CoordInfo sweep; a tile that fails or cannot be trusted is recorded
 * `failed`, a gap, and contributes no row. Rows are kept in memory and written by the caller with
 * one COPY. Nothing here writes to the database.
 */
export interface TileSweepOptions<Row> {
  readonly label: string;
  readonly tiles: readonly Tile[];
  readonly region: ResolvedRegion;
  readonly regionBBox: BBox;
  readonly maxPerRequest: number;
  readonly minTileSizeDeg: number;
  readonly concurrency: number;
  readonly log: Logger;
  readonly secrets: readonly string[];
  readonly request: (tile: Tile) => Promise<EfaResult<Pin>>;
  /** The row of an object this sweep stores, or undefined for objects of other kinds (counted, not stored). */
  readonly rowOf: (pin: Pin) => Row | undefined;
  /** The objects one answered object stands for (a sharing station: the vehicles it lists); default itself. */
  readonly expand?: (pin: Pin) => Pin[];
  readonly keyOf: (row: Row) => string;
}

export interface TileSweepResult<Row> {
  /** One row per object key; an object two tiles returned (it moved between their requests) is kept once, from the first answer. */
  readonly rows: Map<string, { row: Row; pin: Pin }>;
  readonly tiles: SnapshotTileRow[];
  readonly requests: number;
  /** Objects of every kind the answers held. */
  readonly objects: number;
  /** Objects of other kinds the answers held (not stored). */
  readonly others: number;
}

export async function sweepSnapshotTiles<Row>(o: TileSweepOptions<Row>): Promise<TileSweepResult<Row>> {
  const rows = new Map<string, { row: Row; pin: Pin }>();
  const tiles: SnapshotTileRow[] = [];
  const capDetector = createCapDetector();
  const memory = createSplitMemory();
  let requests = 0;
  let objects = 0;
  let others = 0;
  const record = (tile: Tile, rest: Omit<SnapshotTileRow, 'tileId' | 'parentId' | 'depth' | 'bbox'>): void => {
    tiles.push({ tileId: tile.id, parentId: tile.parentId ?? null, depth: tile.depth, bbox: tile.bbox, ...rest });
  };

  await drainQueue(o.tiles, o.concurrency, async (tile) => {
    let result: EfaResult<Pin>;
    requests += 1;
    try {
      result = await o.request(tile);
    } catch (error) {
      if (isFatal(error)) throw error;
      const message = redactText(errorText(error), o.secrets);
      o.log.warn(`${o.label} tile ${tile.id} failed: ${message}; its area is a gap in this snapshot`);
      record(tile, { status: 'failed', objects: 0, stored: 0, attempts: 0, error: message });
      return [];
    }
    const verdict = judgeBoxAnswer(tile.bbox, result, effectiveMax(capDetector, o.maxPerRequest), `${o.label} tile ${tile.id}`);
    observeAnswer(capDetector, tile, verdict.received, o.maxPerRequest);
    objects += verdict.received;
    if (verdict.kind === 'untrusted') {
      o.log.warn(`${verdict.reason}; its area is a gap in this snapshot`);
      record(tile, { status: 'failed', objects: verdict.received, stored: 0, attempts: result.attempts, error: verdict.reason });
      return [];
    }
    memory.observe(tile, verdict.received, verdict.kind === 'capped');
    if (verdict.kind === 'capped') {
      const children = splitTile(tile, result.records.map((h) => h.coord), {
        maxPerRequest: effectiveMax(capDetector, o.maxPerRequest),
        minTileSizeDeg: o.minTileSizeDeg,
        region: o.region,
        memory,
      });
      if (children !== 'too-small') {
        record(tile, { status: 'split', objects: verdict.received, stored: 0, attempts: result.attempts, error: null });
        return children;
      }
      o.log.warn(`${o.label} tile ${tile.id} is capped at ${verdict.received} objects and too small to split; some may be missing`);
    }
    let stored = 0;
    for (const pin of o.expand ? verdict.inside.flatMap(o.expand) : verdict.inside) {
      const row = o.rowOf(pin);
      if (row === undefined) {
        others += 1;
        continue;
      }
      if (!ownsPoint(tile, pin.coord, o.regionBBox) || !inRegion(o.region, pin.coord)) continue;
      const key = o.keyOf(row);
      if (rows.has(key)) continue;
      rows.set(key, { row, pin });
      stored += 1;
    }
    const status = verdict.kind === 'capped' ? 'capped' : verdict.kind === 'incomplete' ? 'incomplete' : 'ok';
    if (verdict.kind === 'incomplete') o.log.warn(`${o.label} tile ${tile.id}: ${verdict.reason}; objects may be missing there`);
    record(tile, { status, objects: verdict.received, stored, attempts: result.attempts, error: verdict.kind === 'incomplete' ? verdict.reason : null });
    return [];
  });

  // Tiles judged before a silent cap was noticed and that reached it may lack objects.
  const cap = capDetector.effectiveCap;
  if (cap !== undefined) {
    o.log.warn(`${o.label}: several tiles answered exactly ${cap} objects, below max: taken as the server's silent cap`);
    for (let i = 0; i < tiles.length; i++) {
      const t = tiles[i];
      if (t && t.status === 'ok' && t.objects >= cap) tiles[i] = { ...t, status: 'capped' };
    }
  }
  return { rows, tiles, requests, objects, others };
}
