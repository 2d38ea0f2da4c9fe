import type { SnapshotTileRow } from '../db/snapshots.js';
import type { EfaResult, Pin } from '../efa/index.js';
import { errorText, isFatal } from '../errors.js';
import type { ResolvedRegion } from '../job/index.js';
import { isSharingVehicle, pinKey } from '../relations/pins.js';
import { createCapDetector, createSpatialCheck, createSplitMemory, inRegion, ownsPoint, splitTile, type AskBox, type BBox, type Tile } from '../tiling/index.js';
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
  /** Whether a still-capped tile at the minimum may follow its density below it (the job set no minimum). */
  readonly followDensity: boolean;
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
  /** By tile id: a tile asked again (it answered a silent cap before it was confirmed) keeps its last record. */
  const tiles = new Map<string, SnapshotTileRow>();
  const capDetector = createCapDetector();
  const spatial = createSpatialCheck();
  const memory = createSplitMemory();
  // Vehicles move between two requests: only objects that stay put are compared by identity.
  const answerOf = (result: EfaResult<Pin>) => ({
    received: result.records.length + result.rejects.length,
    keys: result.records.filter((p) => !isSharingVehicle(p)).map(pinKey),
    points: result.records.map((p) => p.coord),
  });
  // Confirming requests: counted, never stored.
  const ask: AskBox = async (probe) => {
    requests += 1;
    try {
      return answerOf(await o.request(probe));
    } catch (error) {
      if (isFatal(error)) throw error;
      return undefined;
    }
  };
  let requests = 0;
  let objects = 0;
  let others = 0;
  const record = (tile: Tile, rest: Omit<SnapshotTileRow, 'tileId' | 'parentId' | 'depth' | 'bbox'>): void => {
    tiles.set(tile.id, { tileId: tile.id, parentId: tile.parentId ?? null, depth: tile.depth, bbox: tile.bbox, ...rest });
  };
  const forget = (tile: Tile): void => void tiles.delete(tile.id);

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
    const answer = answerOf(result);
    const { max, redo } = await capDetector.observe(tile, answer, o.maxPerRequest, ask);
    // Asked again below: their first record is replaced by the second's.
    for (const t of redo) forget(t);
    const verdict = judgeBoxAnswer(tile.bbox, result, max, `${o.label} tile ${tile.id}`);
    objects += verdict.received;
    if (verdict.kind === 'untrusted') {
      o.log.warn(`${verdict.reason}; its area is a gap in this snapshot`);
      record(tile, { status: 'failed', objects: verdict.received, stored: 0, attempts: result.attempts, error: verdict.reason });
      return redo;
    }
    memory.observe(tile, verdict.received, verdict.kind === 'capped');
    if (verdict.kind === 'capped') {
      const children =
        (await spatial.judgeFull(tile, answer, max, ask)) === 'untrusted'
          ? 'not-spatial'
          : splitTile(tile, result.records.map((h) => h.coord), { maxPerRequest: max, minTileSizeDeg: o.minTileSizeDeg, followDensity: o.followDensity, region: o.region, memory });
      if (children !== 'too-small' && children !== 'not-spatial') {
        record(tile, { status: 'split', objects: verdict.received, stored: 0, attempts: result.attempts, error: null });
        return [...redo, ...children];
      }
      if (children === 'too-small') o.log.warn(`${o.label} tile ${tile.id} is capped at ${verdict.received} objects and too small to split; some may be missing`);
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
    const status = verdict.kind === 'capped' ? 'capped' : verdict.kind === 'incomplete' ? 'incomplete' : 'done';
    if (verdict.kind === 'incomplete') o.log.warn(`${o.label} tile ${tile.id}: ${verdict.reason}; objects may be missing there`);
    record(tile, { status, objects: verdict.received, stored, attempts: result.attempts, error: verdict.kind === 'incomplete' ? verdict.reason : null });
    return redo;
  });

  if (spatial.stopped > 0) {
    o.log.warn(`${o.label}: answers are not spatial: ${spatial.evidence ?? 'boxes of every size answered full'}; ${spatial.stopped} branch(es) stopped as untrusted (recorded capped)`);
  }
  // A tile judged while a confirmation was still under way, and that reached the cap, may lack objects.
  const cap = capDetector.effectiveCap;
  if (cap !== undefined) {
    o.log.warn(`${o.label}: the server silently stops at ${cap} objects, below max (proved by a confirming request): taken as its cap`);
    for (const [id, t] of tiles) if (t.status === 'done' && t.objects >= cap) tiles.set(id, { ...t, status: 'capped' });
  }
  return { rows, tiles: [...tiles.values()], requests, objects, others };
}
