/** Helpers shared by the benches: scratch databases, memory sampling, formatting, the summary shape. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { validateJob, type JobInput, type LoadedJob } from '../src/job/index.js';

/** One line of the final summary table of `npm run bench`. */
export interface BenchLine {
  readonly metric: string;
  readonly value: string;
  /** What the value is compared with, measured in the same run. */
  readonly baseline?: string;
  readonly ratio?: string;
}

/** What a bench hands back to bench/index.ts besides what it prints. */
export interface BenchResult {
  readonly lines: readonly BenchLine[];
  readonly notes?: readonly string[];
}

/** The server the benches use; `BENCH_PG_URL` overrides it (any database, scratch ones are made beside it). */
export const adminPgUrl = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A full collection, available without `--expose-gc` on the command line. */
export function gc(): void {
  const g = globalThis as { gc?: () => void };
  if (!g.gc) {
    setFlagsFromString('--expose-gc');
    g.gc = runInNewContext('gc') as () => void;
  }
  g.gc?.();
}

export async function postgresReachable(url = adminPgUrl): Promise<{ ok: true } | { ok: false; reason: string }> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  } finally {
    await c.end().catch(() => undefined);
  }
}

export interface ScratchDb {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * A scratch database on the bench server, named before it exists so that `drop()` (IF EXISTS, even
 * with open connections) can be called at any time, also while `create()` is still under way.
 */
export function scratchDb(prefix: string, adminUrl = adminPgUrl): ScratchDb & { create(): Promise<void> } {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const admin = async (statement: string): Promise<void> => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  let creating: Promise<void> | undefined;
  return {
    url,
    name,
    create: () =>
      (creating ??= (async () => {
        await admin(`CREATE DATABASE ${name}`);
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          await c.query('CREATE EXTENSION IF NOT EXISTS postgis');
        } finally {
          await c.end();
        }
      })()),
    drop: async () => {
      // A CREATE DATABASE in flight would finish after the DROP and leave the database behind.
      await creating?.catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A new database with PostGIS on the bench server; `drop()` removes it even with open connections. */
export async function createScratchDb(prefix: string, adminUrl = adminPgUrl): Promise<ScratchDb> {
  const db = scratchDb(prefix, adminUrl);
  await db.create();
  return db;
}

export interface MemoryPeaks {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly samples: number;
}

/** Samples `process.memoryUsage()` every `everyMs` until stopped; the peaks include the final sample. */
export function sampleMemory(everyMs = 100): { peaks(): MemoryPeaks; stop(): MemoryPeaks } {
  let rss = 0, heapUsed = 0, external = 0, samples = 0;
  const take = (): void => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heapUsed = Math.max(heapUsed, m.heapUsed);
    external = Math.max(external, m.external + m.arrayBuffers);
    samples += 1;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    peaks: () => ({ rss, heapUsed, external, samples }),
    stop: () => {
      clearInterval(timer);
      take();
      return { rss, heapUsed, external, samples };
    },
  };
}

export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
export const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function header(title: string): void {
  const bar = '='.repeat(Math.max(20, title.length + 8));
  console.log(`\n${bar}\n=== ${title}\n${bar}`);
}

/** As test/helpers/job.ts does: a LoadedJob from an inline job. */
export function inlineJob(input: JobInput): LoadedJob {
  const job = validateJob(input, 'bench job');
  if (!('bbox' in job.region)) throw new Error('bench jobs use a bbox region');
  return { job, file: '(inline)', region: { bbox: job.region.bbox }, hash: `bench-${job.name}` };
}

