import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import { ExitCode } from '../errors.js';
import type { Db } from './connect.js';
import { processAlive } from '../util/process-alive.js';

/** Another run of the same job (or, on PGlite, another process on the same database) is running: exit 4. */
export class LockedError extends Error {
  override name = 'LockedError';
  readonly exitCode = ExitCode.locked;
}

export interface LockInfo {
  pid: number;
  host: string;
  since: string;
  command: string;
  job?: string;
  runId?: string;
}

/**
 * PGlite is one process per data directory: a second one opening it would corrupt it. A lock file
 * beside the directory keeps a second efa-sync out (exit 4, naming the holder); a file left by a
 * killed process (its pid is gone) is taken over, which is what lets a crashed run resume.
 */
export async function lockDataDir(dataDir: string): Promise<{ update(info: Partial<LockInfo>): Promise<void>; release(): Promise<void> }> {
  const file = `${dataDir}.efa-sync.lock`;
  if (existsSync(file)) {
    const holder = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Partial<LockInfo>;
    if (holder.pid && holder.pid !== process.pid && holder.host === hostname() && processAlive(holder.pid)) {
      const what = holder.job ? `run ${holder.runId ?? '?'} of job ${holder.job}` : holder.command ?? 'efa-sync';
      throw new LockedError(`pglite:${dataDir} is in use by ${what} (pid ${holder.pid} since ${holder.since ?? '?'}); PGlite allows one process at a time`);
    }
  }
  let info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: process.argv.slice(2).join(' ') };
  await writeFile(file, JSON.stringify(info));
  return {
    update: async (more) => {
      info = { ...info, ...more };
      await writeFile(file, JSON.stringify(info));
    },
    release: async () => {
      const current = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Partial<LockInfo>;
      if (current.pid === process.pid) await rm(file, { force: true });
    },
  };
}

/**
 * Who holds an advisory lock on a bigint key, for a message: pid, role, application and since when
 * (pg_locks keeps a bigint key as classid = high half, objid = low half, objsubid = 1). Any role
 * may read both views; another role's query text stays hidden, which is why it is not shown.
 */
export async function advisoryKeyHolder(db: Db, key: number): Promise<string | undefined> {
  const r = await sql<{ pid: number; usename: string | null; application_name: string | null; client_addr: string | null; xact_start: Date | null }>`
    SELECT a.pid, a.usename::text AS usename, a.application_name, a.client_addr::text AS client_addr, a.xact_start
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.classid = ${Math.floor(key / 2 ** 32)}::oid AND l.objid = ${key % 2 ** 32}::oid
    LIMIT 1`.execute(db.kysely);
  const h = r.rows[0];
  if (h === undefined) return undefined;
  const app = h.application_name ? `, application "${h.application_name}"` : '';
  const from = h.client_addr ? ` from ${h.client_addr}` : '';
  const since = h.xact_start ? `, in a transaction since ${new Date(h.xact_start).toISOString()}` : '';
  return `session pid ${h.pid} (role ${h.usename ?? '?'}${app}${from}${since})`;
}

/** The part of a pg client the job lock needs (a pool client on its own connection). */
export interface LockConnection {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** The advisory-lock key a job's runs hold on PostgreSQL while `secret` is the job's current secret. */
export function jobLockKey(job: string, secret: string): string {
  return createHash('sha256').update(`efa-sync job lock\0${job}\0${secret}`).digest().readBigInt64BE(0).toString();
}

/** The job's lock secret, created on first use (a concurrent first use keeps whichever came first). */
async function currentSecret(client: LockConnection, job: string): Promise<string> {
  await client.query('INSERT INTO efa_private.job_lock_secrets (job_name, secret) VALUES ($1, $2) ON CONFLICT (job_name) DO NOTHING', [
    job,
    randomBytes(32).toString('base64url'),
  ]);
  const r = await client.query<{ secret: string }>('SELECT secret FROM efa_private.job_lock_secrets WHERE job_name = $1', [job]);
  const secret = r.rows[0]?.secret;
  if (secret === undefined) throw new Error(`efa_private.job_lock_secrets has no row for job ${job} right after it was written`);
  return secret;
}

export interface HeldJobKey {
  readonly key: string;
  readonly secret: string;
}

/**
 * Takes the PostgreSQL session advisory lock of a job's runs, or returns undefined when another
 * session holds it. Advisory locks have no privileges: any role, a `grant-reader` analyst too, may
 * take any key. So the key is derived from a per-job secret in `efa_private.job_lock_secrets`,
 * which only the ETL role can read, and the secret is replaced when a run releases the lock
 * (`releaseJobKey`): the key a reader may see in `pg_locks` during a run is worthless after it.
 *
 * Why re-reading the secret after the lock is taken is enough: the secret only changes while its
 * key is held (by the releasing run, just before it unlocks). A process that read the old secret
 * and got the old key after that release sees the new secret, lets go and tries the new key, where
 * it meets a run that took it properly. Two runs can never both hold the key of the current secret.
 */
export async function takeJobKey(client: LockConnection, job: string): Promise<HeldJobKey | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const secret = await currentSecret(client, job);
    const key = jobLockKey(job, secret);
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
    if (got.rows[0]?.ok !== true) return undefined;
    if ((await currentSecret(client, job)) === secret) return { key, secret };
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
  }
  // Ten rotations during one attempt to take the lock: runs are finishing faster than this one can start.
  return undefined;
}

/** Replaces the job's secret (while its key is still held), then lets the key go. */
export async function releaseJobKey(client: LockConnection, job: string, held: HeldJobKey): Promise<void> {
  await client.query('UPDATE efa_private.job_lock_secrets SET secret = $2, rotated_at = now() WHERE job_name = $1 AND secret = $3', [
    job,
    randomBytes(32).toString('base64url'),
    held.secret,
  ]);
  await client.query('SELECT pg_advisory_unlock($1::bigint)', [held.key]);
}
