import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { isHistoryRelation, type HistoryRelation } from './relations.js';

/** Versions removed per relation by one prune. */
export type PrunedCounts = Partial<Record<HistoryRelation, number>>;

const dayMs = 86_400_000;

/**
 * Drops the superseded versions that stopped being current before `before` (efa.prune_history).
 * Only efa.<relation>_history is touched: current rows live in the entity tables, so no current
 * version is ever pruned, and as-of queries after `before` answer as before.
 */
export async function pruneHistory(db: Kysely<Database>, before: Date): Promise<PrunedCounts> {
  const r = await sql<{ relation: string; pruned: string }>`SELECT relation, pruned::text AS pruned FROM efa.prune_history(${before.toISOString()}::timestamptz)`.execute(db);
  const out: PrunedCounts = {};
  for (const row of r.rows) if (isHistoryRelation(row.relation)) out[row.relation] = Number(row.pruned);
  return out;
}

/**
 * A job's retention (`history.keepDays`): at the end of its run, versions that ended more than
 * keepDays before `now` are pruned. Without the key nothing is pruned (every version is kept).
 */
export async function pruneHistoryFor(db: Kysely<Database>, history: { readonly keepDays: number } | undefined, now: Date = new Date()): Promise<PrunedCounts | undefined> {
  if (history === undefined) return undefined;
  return pruneHistory(db, new Date(now.getTime() - history.keepDays * dayMs));
}
