import type { UnitStats } from '../../db/run-record.js';

/**
 * What a sweep notes in memory while it runs. The run's counts (units, rejects, capped and
 * incomplete units, rows per relation) are NOT read from here: the summary reads them from the
 * ledger at the end (run/finalise.ts), so they cover a resumed run whole. `units`, `capped` and
 * `incomplete` are still written by the CoordInfo sweep and the unit runner; of them only the
 * incomplete tiles' reasons are read (a tile's record does not hold its reason yet).
 */
export class RunStats {
  readonly units: Record<string, UnitStats> = {};
  readonly capped: { operation: string; unit: string; hits: number }[] = [];
  readonly incomplete: { operation: string; unit: string; reason: string }[] = [];
  /** Sharing vehicles CoordInfo answered and the run did not store as pins (they belong to the snapshot sweep). */
  vehiclesNotStored = 0;
  /** What a sweep saw that makes the run partial beyond its units' outcomes (answers not spatial, a first night answering nothing): each named in the run's error. */
  readonly notes: string[] = [];

  addUnit(operation: string, status: keyof UnitStats, n = 1): void {
    const u = (this.units[operation] ??= { done: 0, incomplete: 0, split: 0, capped: 0, failed: 0 });
    u[status] += n;
  }
}
