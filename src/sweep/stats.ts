export interface RelationStats {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export interface UnitStats {
  done: number;
  split: number;
  capped: number;
  failed: number;
}

/**
 * What a run counts in memory while it sweeps. Rows per relation are not counted here: they come
 * from efa.changes and efa.run_seen at the end (finalise.ts), so they survive a resume.
 */
export class RunStats {
  readonly units: Record<string, UnitStats> = {};
  rejects = 0;
  readonly capped: { operation: string; unit: string; hits: number }[] = [];

  addUnit(operation: string, status: keyof UnitStats, n = 1): void {
    const u = (this.units[operation] ??= { done: 0, split: 0, capped: 0, failed: 0 });
    u[status] += n;
  }
}
