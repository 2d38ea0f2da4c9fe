import type { Db } from '../../db/connect.js';
import { migrate } from '../../db/migrate.js';
import { storedSnapshotsAt, type StoredSnapshot } from '../../db/snapshots.js';
import { ConfigError } from '../../errors.js';
import type { Job } from '../../job/index.js';
import { sourceOf } from '../../relations/index.js';

/**
 * The time a snapshot is taken as (`run --now`, `EFA_NOW`), checked before anything is sent.
 *
 * - Not ahead of this machine's clock by more than NOW_FUTURE_SKEW_MS: a snapshot of the future would
 *   be the latest one until that time came (efa.latest_vehicles, the next snapshot's tile plan), and
 *   the upstream answers with what it has now anyway. Five minutes absorb the clock differences of
 *   two machines (a scheduler's and the database's), never a date typed wrong.
 * - Not older than the retention (snapshots.retentionDays, counted in whole UTC days as the
 *   partitions are dropped): it would be stored and dropped by the same day's upkeep, a "succeeded"
 *   run that kept nothing.
 * - Not an instant the job already stored a usable snapshot at (whatever zone it is written in):
 *   a retried backfill ends with "already stored, nothing to do" (exit 0), not a duplicate.
 */
export const NOW_FUTURE_SKEW_MS = 5 * 60_000;

/** snapshots.retentionDays when the job sets none (the job schema's default). */
export const DEFAULT_RETENTION_DAYS = 90;

const dayMs = 86_400_000;

/** The first instant a snapshot may be taken as: the start of the UTC day `retentionDays` before `now`. */
export function oldestKeptInstant(retentionDays: number, now: Date): Date {
  const day = new Date(now.getTime() - retentionDays * dayMs);
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
}

/** A ConfigError (exit 2) naming `name` when `takenAt` is too far ahead or older than the retention. */
export function checkSnapshotTime(takenAt: Date, retentionDays: number, name: string, now = new Date()): void {
  const at = takenAt.toISOString();
  if (takenAt.getTime() > now.getTime() + NOW_FUTURE_SKEW_MS) {
    throw new ConfigError(
      `${name}: ${at} is ahead of this machine's clock (${now.toISOString()}) by more than ${NOW_FUTURE_SKEW_MS / 60_000} minutes: ` +
        'a snapshot is taken now or in the past; stored in the future it would stay the latest snapshot until then. Give a time up to now.',
      name,
    );
  }
  const oldest = oldestKeptInstant(retentionDays, now);
  if (takenAt < oldest) {
    throw new ConfigError(
      `${name}: ${at} is older than the job's retention of ${retentionDays} days (snapshots.retentionDays): its day is dropped by the retention, ` +
        `so it would be stored and dropped again. Give a time from ${oldest.toISOString()} on, or raise snapshots.retentionDays.`,
      name,
    );
  }
}

/** What the job stored at `takenAt` already, as a line to print; undefined when there is nothing. */
export function alreadyStoredLine(jobName: string, takenAt: Date, stored: readonly StoredSnapshot[]): string | undefined {
  if (stored.length === 0) return undefined;
  const which = stored.map((s) => `${s.kind} ${s.status} in run ${s.runId}`).join(', ');
  return `job ${jobName}: a snapshot taken at ${takenAt.toISOString()} is already stored (${which}): nothing to do`;
}

/**
 * The usable snapshots the job already stored at `takenAt`, looked up before the upstream is asked
 * (the database migrated first: a new one has none).
 */
export async function snapshotsStoredAt(db: Db, job: Job, takenAt: Date): Promise<StoredSnapshot[]> {
  await migrate(db);
  return storedSnapshotsAt(db.kysely, sourceOf(job), job.name, takenAt);
}
