import type { Kysely } from 'kysely';
import { previousSnapshot, type SnapshotKind, type SnapshotRecord, type SnapshotStatus, type SnapshotTileRow } from '../../db/snapshots.js';
import type { Database } from '../../db/tables.js';
import type { ResolvedRegion } from '../../job/index.js';
import { initialCoordTiles } from '../nightly/plan.js';
import { planFromKnownPoints, type Tile, type TileBudget } from '../../tiling/index.js';
import { makeTile } from '../../tiling/geo.js';

/**
 * The tiles of a snapshot, from the previous usable snapshot of the same job, so an unchanged world
 * needs no split:
 * - where the answers held only the objects stored (vehSF kept others out), a k-d partition at the
 *   stored objects' quantiles, each tile sized for 90 % of `max` (the nightly plan): close to the
 *   floor ceil(objects / max);
 * - where the server mixed other objects in (they count towards `max` but are not stored, so their
 *   places are unknown), the previous snapshot's leaf tiles themselves, each of which answered
 *   below `max` then.
 * Without a previous snapshot: the region as one tile, split from what its answer shows.
 */
export async function planSnapshotTiles(
  db: Kysely<Database>,
  q: { jobName: string; kind: SnapshotKind; region: ResolvedRegion; budget: TileBudget },
): Promise<{ tiles: Tile[]; known: number }> {
  const previous = await previousSnapshot(db, q.jobName, q.kind);
  const known = previous ? previous.points.length / 2 : 0;
  if (!previous || known === 0) return { tiles: initialCoordTiles(q.region), known };
  if (previous.objectsPerRow > mixedAnswers) {
    const tiles = previous.leaves.map((l): Tile => ({ ...makeTile(l.bbox, 0), known: l.objects }));
    return { tiles, known };
  }
  return { tiles: planFromKnownPoints(q.region, previous.points, q.budget), known };
}

/** Objects per stored row above which answers count as mixed (edge duplicates alone stay below). */
const mixedAnswers = 1.05;

/** The leaves of a snapshot's tiles: what it looked at, split tiles replaced by their children. */
export const leafTiles = (tiles: readonly SnapshotTileRow[]): SnapshotTileRow[] => tiles.filter((t) => t.status !== 'split');

/**
 * complete: every leaf answered whole; failed: no leaf answered at all; partial: some leaves
 * failed, were capped or incomplete (their area is a gap, marked in efa.snapshot_tiles).
 */
export function snapshotStatus(tiles: readonly SnapshotTileRow[]): SnapshotStatus {
  const leaves = leafTiles(tiles);
  if (leaves.length === 0 || leaves.every((t) => t.status === 'failed')) return 'failed';
  return leaves.every((t) => t.status === 'done') ? 'complete' : 'partial';
}

/** What one snapshot of a kind took, from its tiles: leaves only (split tiles' answers repeat in their children). */
export function snapshotRecord(kind: SnapshotKind, tiles: readonly SnapshotTileRow[], requests: number, detailRequests: number): SnapshotRecord {
  const leaves = leafTiles(tiles);
  return {
    kind,
    status: snapshotStatus(tiles),
    tiles: leaves.length,
    tilesFailed: leaves.filter((t) => t.status === 'failed').length,
    tilesCapped: leaves.filter((t) => t.status === 'capped' || t.status === 'incomplete').length,
    objects: leaves.reduce((n, t) => n + t.objects, 0),
    requests,
    detailRequests,
  };
}
