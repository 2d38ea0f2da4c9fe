import { z } from 'zod';
import { RELATIONS } from '../relations/index.js';

/**
 * The run record: what efa.runs holds about a run besides its status and times. Relation counts
 * (efa.runs.stats, the contract's shape) and run metadata (efa.runs.meta) are apart; both are
 * validated when written and when read, so readers never cast.
 */

export const relationStatsSchema = z.object({
  inserted: z.int().nonnegative(),
  updated: z.int().nonnegative(),
  deleted: z.int().nonnegative(),
  unchanged: z.int().nonnegative(),
});
export type RelationStats = z.infer<typeof relationStatsSchema>;

export const relationCountsSchema = z.partialRecord(z.enum(RELATIONS), relationStatsSchema);
export type RelationCounts = z.infer<typeof relationCountsSchema>;

export const unitStatsSchema = z.object({
  done: z.int().nonnegative(),
  incomplete: z.int().nonnegative().default(0),
  split: z.int().nonnegative(),
  capped: z.int().nonnegative(),
  failed: z.int().nonnegative(),
});
export type UnitStats = z.infer<typeof unitStatsSchema>;

const unitRefSchema = z.object({ operation: z.string(), unit: z.string() });

/** Deletions the mass-deletion guard held: the relation, how many, of how many live rows in scope. */
export const heldDeletionSchema = z.object({
  relation: z.enum(RELATIONS),
  wouldMark: z.int().nonnegative(),
  liveInScope: z.int().nonnegative(),
  maxGonePercent: z.number(),
  /**
   * Why it was held: `share` (more than maxGonePercent of the live rows in scope), `empties` (the
   * run would leave no live row in scope, at any size), `cycle` (with what the job's earlier runs of
   * one rolling-refresh cycle marked, more than maxGonePercent). Absent in records before 0.3.
   */
  reason: z.enum(['share', 'empties', 'cycle']).optional(),
  /** For `cycle`: rows the job's previous runs of the cycle marked gone, and how many runs a cycle has. */
  markedEarlierInCycle: z.int().nonnegative().optional(),
  cycleRuns: z.int().positive().optional(),
});
export type HeldDeletion = z.infer<typeof heldDeletionSchema>;

/** What a snapshot run took, per kind (efa.snapshots has the same, for SQL). */
export const snapshotMetaSchema = z.object({
  kind: z.enum(['vehicles', 'parking']),
  status: z.enum(['complete', 'partial', 'failed']),
  takenAt: z.string(),
  rows: z.int().nonnegative(),
  objects: z.int().nonnegative(),
  others: z.int().nonnegative(),
  requests: z.int().nonnegative(),
  floor: z.int().nonnegative(),
  detailRequests: z.int().nonnegative(),
  tilesFailed: z.int().nonnegative(),
  tilesCapped: z.int().nonnegative(),
});
export type SnapshotMeta = z.infer<typeof snapshotMetaSchema>;

export const runMetaSchema = z.object({
  source: z.string(),
  dialect: z.string(),
  requestsByOperation: z.record(z.string(), z.int().nonnegative()),
  retries: z.int().nonnegative(),
  /** The upstream's outages in this process's part of the run: how often, seconds waited, probe requests. */
  outage: z.object({ outages: z.int().nonnegative(), probes: z.int().nonnegative(), waitedS: z.number().nonnegative() }).optional(),
  units: z.record(z.string(), unitStatsSchema),
  rejects: z.int().nonnegative(),
  failures: z.array(unitRefSchema.extend({ error: z.string() })),
  capped: z.array(unitRefSchema.extend({ hits: z.int().nonnegative() })),
  incomplete: z.array(unitRefSchema.extend({ reason: z.string() })).default([]),
  heldDeletions: z.array(heldDeletionSchema).default([]),
  durationS: z.number().nonnegative(),
  /** Of durationS, the seconds from the end of the last request to the run's end (deletions, counts, record, views). */
  finaliseS: z.number().nonnegative().optional(),
  snapshots: z.array(snapshotMetaSchema).optional(),
  /** Sharing vehicles a nightly CoordInfo sweep received and did not store as pins. */
  vehiclesNotStored: z.int().nonnegative().optional(),
});
export type RunMeta = z.infer<typeof runMetaSchema>;

/** Reads efa.runs.stats of any release: 0.1 mixed `_`-prefixed metadata into it, which is dropped here. */
export function readRelationCounts(stats: unknown): RelationCounts {
  const clean = Object.fromEntries(Object.entries((stats ?? {}) as Record<string, unknown>).filter(([k]) => (RELATIONS as readonly string[]).includes(k)));
  const parsed = relationCountsSchema.safeParse(clean);
  return parsed.success ? parsed.data : {};
}

/** Reads efa.runs.meta; runs of 0.1 kept their metadata in stats under `_` keys. */
export function readRunMeta(meta: unknown, stats?: unknown): RunMeta | undefined {
  const parsed = runMetaSchema.safeParse(meta);
  if (parsed.success) return parsed.data;
  const old = (stats ?? {}) as Record<string, unknown>;
  if (!('_units' in old)) return undefined;
  const legacy = runMetaSchema.safeParse({
    source: '',
    dialect: old['_dialect'] ?? 'json',
    requestsByOperation: old['_requests'] ?? {},
    retries: old['_retries'] ?? 0,
    units: old['_units'],
    rejects: old['_rejects'] ?? 0,
    failures: ((old['_failures'] ?? []) as { operation: string; tile_id: string; error: string | null }[]).map((f) => ({ operation: f.operation, unit: f.tile_id, error: f.error ?? '' })),
    capped: old['_capped'] ?? [],
    durationS: 0,
  });
  return legacy.success ? legacy.data : undefined;
}
