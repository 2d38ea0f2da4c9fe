import type { UnitStats } from '../db/run-record.js';

/**
 * What a run counts in memory while it sweeps. Rows per relation are not counted here: they come
 * from efa.changes and efa.run_seen at the end (the ledger), so they survive a resume.
 */
export class RunStats {
  readonly units: Record<string, UnitStats> = {};
  rejects = 0;
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
