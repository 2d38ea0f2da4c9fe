import { afterAll, beforeAll, expect } from 'vitest';
import type { Db } from '../../src/db/connect.js';
import type { JobInput } from '../../src/job/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { capturingLogger, goneButStillThere, pinCounts, receivedButMissing, watchMemory } from '../helpers/hostile-checks.js';
import { gridStops, startHostileUpstream, type HostileUpstream, type UpstreamStop, type WirePin } from '../helpers/hostile-upstream.js';
import { inlineJob } from '../helpers/job.js';

/**
 * Issue 10: a hostile upstream, night two after a truthful night one (400 stops in one tile). For
 * every row: nothing the upstream still has is marked gone, nothing received is missing from the
 * tables or efa.rejects, the exit code and message are the documented ones, and the process grows
 * by less than the bound the row states. The rows are test/e2e/hostile.test.ts (records) and
 * hostile-bodies.test.ts (bodies and servers that will not let a run end).
 *
 * Every row is its own source (the job's name) in its file's one database, so rows cannot see each
 * other's pins, deletions or rejects.
 */

export const REGION = [9.1, 48.7, 9.2, 48.8] as const;
export const STOP_COUNT = 400;
/** Any row that is not about big bodies: the run holds a few hundred records at a time. */
export const SMALL_MEMORY_MIB = 200;
/** The body rows: the transport may hold one 64 MiB reply (plus its text) at a time, never what the server sends. */
export const BODY_MEMORY_MIB = 300;

export interface Night {
  readonly summary: RunSummary;
  /** The run's warnings and errors, one message a line. */
  readonly logText: string;
  readonly peakGrowthMiB: number;
  readonly seconds: number;
  /** Records the upstream sent during this night. */
  readonly sent: readonly WirePin[];
  /** Requests the upstream received during this night. */
  readonly requests: number;
}

export interface Row {
  readonly name: string;
  readonly upstream: HostileUpstream;
  night(options?: { full?: boolean; acceptDeletions?: boolean | { runId: string } }): Promise<Night>;
}

export interface HostileRows {
  /** The file's database (open from its beforeAll on). */
  readonly db: Db;
  /** A row: its own upstream (truthful until told otherwise) and job, the row's name as its source. */
  row(name: string, opts?: { stops?: readonly UpstreamStop[]; maxPerRequest?: number; job?: Partial<JobInput> }): Promise<Row>;
  /** Night one against the truthful upstream: every stop stored, exit 0. */
  truthfulNightOne(r: Row): Promise<void>;
  /** The checks every row makes after its hostile night. */
  expectNothingLost(r: Row, night: Night, memoryBoundMiB: number): Promise<void>;
}

/** Registers the file's hooks (one database, every upstream stopped after the file) and gives its rows. */
export function useHostileRows(): HostileRows {
  let t: TestDb | undefined;
  const upstreams: HostileUpstream[] = [];
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => {
    await Promise.all(upstreams.map((u) => u.stop()));
    await t?.dispose();
  });
  const db = (): Db => {
    if (!t) throw new Error('the hostile rows database is opened in beforeAll');
    return t.db;
  };

  const row: HostileRows['row'] = async (name, opts = {}) => {
    const upstream = await startHostileUpstream(opts.stops ?? gridStops(STOP_COUNT, REGION));
    upstreams.push(upstream);
    const job: JobInput = {
      name,
      baseUrl: upstream.url,
      region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 500, concurrency: 4, retries: 1, timeoutMs: 10_000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: opts.maxPerRequest ?? 500 } },
      ...opts.job,
    };
    const loaded = inlineJob(job);
    return {
      name,
      upstream,
      night: async (options = {}) => {
        const { log, text } = capturingLogger();
        const from = upstream.requests.length;
        const started = Date.now();
        const memory = watchMemory();
        const summary = await runJob({ loaded, db: db(), log, today: '2026-11-22', ...options });
        const { peakGrowthMiB } = memory.stop();
        const requests = upstream.requests.slice(from);
        return {
          summary,
          logText: text(),
          peakGrowthMiB,
          seconds: (Date.now() - started) / 1000,
          sent: requests.flatMap((r) => r.sent),
          requests: requests.length,
        };
      },
    };
  };

  return {
    get db() {
      return db();
    },
    row,
    async truthfulNightOne(r) {
      const one = await r.night();
      expect(one.summary.exitCode).toBe(0);
      expect((await pinCounts(db(), r.name)).live).toBe(r.upstream.stops.length);
    },
    async expectNothingLost(r, night, memoryBoundMiB) {
      expect(await goneButStillThere(db(), r.name, r.upstream.stops.map((s) => s.id))).toEqual([]);
      expect(await receivedButMissing(db(), r.name, night.sent)).toEqual([]);
      expect(night.peakGrowthMiB).toBeLessThan(memoryBoundMiB);
    },
  };
}

/**
 * The one tile of the night could not be trusted: nothing was committed as complete, so the run is
 * failed (exit 1, the exit-code table), deletes nothing, and names the tile.
 */
export function expectEveryUnitFailed(s: RunSummary): void {
  expect(s.status).toBe('failed');
  expect(s.exitCode).toBe(1);
  expect(s.failures.length).toBeGreaterThan(0);
  expect(s.failures.every((f) => f.operation === 'coordInfo')).toBe(true);
}

export const failureText = (s: RunSummary): string => [s.error ?? '', ...s.failures.map((f) => f.error)].join('\n');
