import type { SnapshotReject, SnapshotTileRow } from '../../db/snapshots.js';
import { canonicalJson } from '../../efa/parse/duplicates.js';
import type { EfaResult, Pin } from '../../efa/index.js';
import type { ResolvedRegion } from '../../job/index.js';
import { afterSilentCap, createBoxStep, silentCapWarning, sweepBoxes, type BoxSink, type KeptStatus } from '../index.js';
import type { BBox, Tile, TileBudget } from '../../tiling/index.js';
import type { Logger } from '../../util/log.js';
/**
 * One snapshot's box sweep, for vehicles and parking alike: each tile is requested once; an answer
 * as large as `max` (every object counts, whatever its kind, rejects included) is split where its
 * objects lie, through the same box step as the nightly CoordInfo sweep (src/sweep); a tile that
 * fails or cannot be trusted is recorded `failed`, a gap, and contributes no row. This sweep's sink
 * is an accumulator: rows are kept in memory and written by the caller with one COPY. Nothing here
 * writes to the database.
 */
export interface TileSweepOptions<Row> {
  readonly label: string;
  readonly tiles: readonly Tile[];
  readonly region: ResolvedRegion;
  readonly regionBBox: BBox;
  /** The sweep's one tile budget (tileBudgetOf): its cap per request and its smallest tile. */
  readonly budget: TileBudget;
  readonly concurrency: number;
  readonly log: Logger;
  readonly secrets: readonly string[];
  readonly request: (tile: Tile) => Promise<EfaResult<Pin>>;
  /** The row of an object this sweep stores, or undefined for objects of other kinds (counted, not stored). */
  readonly rowOf: (pin: Pin) => Row | undefined;
  /** The objects one answered object stands for (a sharing station: the vehicles it lists); default itself. */
  readonly expand?: (pin: Pin) => Pin[];
  readonly keyOf: (row: Row) => string;
  /** How a key reads in a reject reason (default: as it is). */
  readonly keyLabel?: (row: Row) => string;
  /** Why parts of a stored row's record were not stored as sent (each becomes a reject; the row is stored). */
  readonly problemsOf?: (row: Row) => readonly string[];
}

export interface TileSweepResult<Row> {
  /**
   * One row per object key; an object two tiles returned (it moved between their requests) is kept
   * once, from the first answer, and the other copy is a reject (never dropped without a trace).
   */
  readonly rows: Map<string, { row: Row; pin: Pin; tileId: string }>;
  /** The answers' rejects, copies of a key already kept, and the problems of stored rows (efa.rejects). */
  readonly rejects: SnapshotReject[];
  readonly tiles: SnapshotTileRow[];
  readonly requests: number;
  /** Objects of every kind the answers held. */
  readonly objects: number;
  /** Objects of other kinds the answers held (not stored). */
  readonly others: number;
}

export async function sweepSnapshotTiles<Row>(o: TileSweepOptions<Row>): Promise<TileSweepResult<Row>> {
  const rows = new Map<string, { row: Row; pin: Pin; tileId: string }>();
  const rejects: SnapshotReject[] = [];
  /** Rejects by tile: a tile asked again keeps only its last answer's. */
  const tileRejects = new Map<string, SnapshotReject[]>();
  /** By tile id: a tile asked again (it answered a silent cap before it was confirmed) keeps its last record. */
  const tiles = new Map<string, SnapshotTileRow & { kept?: KeptStatus }>();
  let objects = 0;
  let others = 0;
  const step = createBoxStep({
    label: o.label,
    budget: o.budget,
    region: o.region,
    regionBBox: o.regionBBox,
    secrets: o.secrets,
    ...(o.expand ? { expand: o.expand } : {}),
  });
  const record = (tile: Tile, rest: Omit<SnapshotTileRow, 'tileId' | 'parentId' | 'depth' | 'bbox'>, kept?: KeptStatus): void => {
    tiles.set(tile.id, { tileId: tile.id, parentId: tile.parentId ?? null, depth: tile.depth, bbox: tile.bbox, ...rest, ...(kept ? { kept } : {}) });
  };
  const sink: BoxSink = {
    consequence: { failed: '; its area is a gap in this snapshot', incomplete: 'objects may be missing there' },
    // Asked again below: their first record is replaced by the second's.
    redo(again) {
      const ids = new Set(again.map((t) => t.id));
      for (const id of ids) {
        tiles.delete(id);
        tileRejects.delete(id);
      }
      // Its rows too: the tile's second answer stands for it, not a copy beside its first.
      for (const [key, kept] of rows) if (ids.has(kept.tileId)) rows.delete(key);
    },
    take(tile, outcome) {
      objects += outcome.received;
      const mine: SnapshotReject[] = outcome.kind === 'split' ? [] : outcome.rejects.map((r) => ({ ...r, unit: tile.id }));
      tileRejects.set(tile.id, mine);
      if (outcome.kind === 'failed') return record(tile, { status: 'failed', objects: outcome.received, stored: 0, attempts: outcome.attempts, error: outcome.error });
      if (outcome.kind === 'split') return record(tile, { status: 'split', objects: outcome.received, stored: 0, attempts: outcome.attempts, error: null });
      for (const pin of outcome.inside) if (o.rowOf(pin) === undefined) others += 1;
      let stored = 0;
      for (const pin of outcome.owned) {
        const row = o.rowOf(pin);
        if (row === undefined) continue;
        const key = o.keyOf(row);
        const kept = rows.get(key);
        if (kept !== undefined) {
          // The same copy twice is the same record; another copy is told, never dropped silently.
          if (canonicalJson(kept.pin) !== canonicalJson(pin)) {
            const label = o.keyLabel?.(row) ?? JSON.stringify(key);
            mine.push({
              operation: 'coordInfo',
              unit: tile.id,
              reason: `${o.label} snapshot: ${label} twice in one snapshot: the copy of tile ${kept.tileId} is stored, this one is not (the object moved between the two requests, or two objects share one key)`,
              raw: pin,
            });
          }
          continue;
        }
        rows.set(key, { row, pin, tileId: tile.id });
        for (const problem of o.problemsOf?.(row) ?? []) mine.push({ operation: 'coordInfo', unit: tile.id, reason: `${o.label} snapshot: ${problem}: stored as NULL`, raw: pin });
        stored += 1;
      }
      record(tile, { status: outcome.status, objects: outcome.received, stored, attempts: outcome.attempts, error: outcome.reason ?? null }, outcome.status);
    },
  };
  const end = await sweepBoxes(o.tiles, o.request, step, sink, { concurrency: o.concurrency, log: o.log, secrets: o.secrets });
  const notSpatial = step.notSpatialNote();
  if (notSpatial !== undefined) o.log.warn(notSpatial);
  // A tile judged while a confirmation was still under way, and that reached the cap, may lack objects.
  const cap = step.silentCap;
  if (cap !== undefined) o.log.warn(silentCapWarning(o.label, cap));
  const out = [...tiles.values()].map(({ kept, ...t }) => (kept === undefined ? t : { ...t, status: afterSilentCap(cap, kept, t.objects) }));
  for (const list of tileRejects.values()) rejects.push(...list);
  return { rows, tiles: out, requests: end.requests + end.confirming, objects, others, rejects };
}
