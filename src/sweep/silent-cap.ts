import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { KeptStatus } from './outcome.js';

/**
 * The post-pass once a silent cap is proved. Tiles judged complete before the confirming request
 * proved that the server stops at `cap` below max, and whose answers reached it, may lack objects:
 * they are re-marked capped (stored, deleting nothing). Tiles asked again after the proof (the cap
 * detector hands them back) were judged by the cap already. One rule, for a sweep that keeps its
 * tiles in memory (a snapshot) and for one that keeps them in the ledger (the nightly sweep).
 */
export function afterSilentCap(cap: number | undefined, status: KeptStatus, received: number): KeptStatus {
  return cap !== undefined && status === 'done' && received >= cap ? 'capped' : status;
}

/** `afterSilentCap` over a nightly run's CoordInfo tiles in efa.run_tiles (`hits` is what each answer received). */
export async function remarkSilentCapped(db: Kysely<Database>, runId: string, cap: number | undefined): Promise<void> {
  if (cap === undefined) return;
  await db
    .updateTable('efa.run_tiles')
    .set({ status: 'capped' })
    .where('run_id', '=', runId)
    .where('operation', '=', 'coordInfo')
    .where('status', '=', 'done')
    .where('hits', '>=', cap)
    .execute();
}

/** What the sweep says once a silent cap is proved. */
export function silentCapWarning(label: string, cap: number): string {
  return `${label}: the server silently stops at ${cap} records, below max (proved by a confirming request): ${cap} was taken as its cap (tiles that reached it were split, or count as capped)`;
}
