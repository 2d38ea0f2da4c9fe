import type { UpsertCounts } from '../db/upsert.js';

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

/** The run's counters; `toJSON` is what lands in efa.runs.stats. */
export class RunStats {
  readonly relations: Record<string, RelationStats> = {};
  readonly units: Record<string, UnitStats> = {};
  rejects = 0;
  readonly failures: { operation: string; unit: string; error: string }[] = [];
  readonly capped: { operation: string; unit: string; hits: number }[] = [];

  addRows(relation: string, counts: UpsertCounts): void {
    const r = (this.relations[relation] ??= { inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
    r.inserted += counts.inserted;
    r.updated += counts.updated;
    r.unchanged += counts.unchanged;
  }

  addDeleted(relation: string, n: number): void {
    const r = (this.relations[relation] ??= { inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
    r.deleted += n;
  }

  addUnit(operation: string, status: keyof UnitStats, n = 1): void {
    const u = (this.units[operation] ??= { done: 0, split: 0, capped: 0, failed: 0 });
    u[status] += n;
  }

  failed(operation: string, unit: string, error: string): void {
    this.addUnit(operation, 'failed');
    this.failures.push({ operation, unit, error });
  }

  get failedCount(): number {
    return this.failures.length;
  }

  get succeededUnits(): number {
    return Object.values(this.units).reduce((n, u) => n + u.done + u.capped, 0);
  }

  toJSON(): Record<string, unknown> {
    return { ...this.relations, _units: this.units, _rejects: this.rejects, _failures: this.failures.slice(0, 50), _capped: this.capped.slice(0, 50) };
  }
}
