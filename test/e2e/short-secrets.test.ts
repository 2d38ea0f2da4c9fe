import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { gridStops, pinsBody, startHostileUpstream, wirePin, type HostileUpstream } from '../helpers/hostile-upstream.js';
import { scanDatabase, scanTexts } from '../util/secret-scan.js';

/**
 * Issue 22.4: secrets shorter than the old 8-character minimum (`sig=` in baseUrl, an API key
 * header) echoed by the upstream into stop names, extra attributes, a record that is rejected, and
 * an error body. None of them may reach a row of schema efa (pins, rejects, run_tiles, runs), a log
 * line, `runs --json` or the HTML report. The data around them survives: the stops are stored,
 * their coordinates untouched.
 */

const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const SIG = 'k3Y9a';
const API_KEY = 'Zq7x';
const SECRETS = [SIG, API_KEY];

describe('short secrets echoed by the upstream', () => {
  let upstream: HostileUpstream;
  let created: TestDbUrl;
  let dir: string;
  const outputs: Record<string, string> = {};
  const record = (name: string, r: CliResult): CliResult => {
    outputs[`${name} stdout`] = r.stdout;
    outputs[`${name} stderr`] = r.stderr;
    return r;
  };

  beforeAll(async () => {
    upstream = await startHostileUpstream(gridStops(120, REGION));
    created = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-short-secrets-'));
  });
  afterAll(async () => {
    await upstream?.stop();
    await created?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are cut from rows, rejects, errors, logs, runs --json and the report', async () => {
    const base = new URL(upstream.url);
    base.searchParams.set('sig', SIG);
    const job = {
      name: 'short-secrets',
      baseUrl: base.toString(),
      region: { bbox: [...REGION] },
      headers: { 'X-Api-Key': { env: 'EFA_TEST_SHORT_KEY' } },
      rateLimit: { requestsPerSecond: 200, concurrency: 2, retries: 0, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    };
    const file = join(dir, 'short.json');
    await writeFile(file, JSON.stringify(job));
    const report = join(dir, 'report.html');
    const env = { DATABASE_URL: created.url, EFA_TEST_SHORT_KEY: API_KEY, EFA_LOG_FORMAT: 'json' };

    // Every answer echoes what it was sent: the sig from the query and the key from the headers.
    upstream.behave((q, truthful) => {
      const sig = new URL(q.url, 'http://x').searchParams.get('sig') ?? '';
      const key = String(q.headers['x-api-key'] ?? '');
      if (q.bbox[0] <= 9.101 && q.bbox[1] <= 48.701 && q.max > 1 && (q.bbox[2] - q.bbox[0]) * (q.bbox[3] - q.bbox[1]) < 0.0099) {
        return { status: 500, body: `tile store offline for sig=${sig} key ${key}` };
      }
      const pins = truthful.map((s, i) => ({
        ...wirePin(s),
        name: i % 2 === 0 ? `${s.name} ${sig}` : `${s.name} (key ${key})`,
        desc: `echo sig=${sig}&key=${key}`,
      }));
      // One record without coordinates: a reject whose raw record carries both secrets.
      pins.push({ type: 'STOP', id: `de:08111:bad${sig}`, name: `broken ${key}`, motTypes: '5' } as never);
      return pinsBody(pins);
    });
    const run = record('run', await runCli(['run', file, '--full'], env));
    expect([0, 3]).toContain(run.code);
    expect(record('runs --json', await runCli(['runs', '--json'], env)).code).toBe(0);
    const reported = record('report', await runCli(['report', '--out', report], env));
    expect(reported.code, reported.stderr.slice(-500)).toBe(0);
    outputs['report.html'] = await readFile(report, 'utf8');

    // The secrets were sent and echoed, so a leak had a source.
    expect(upstream.requests.some((r) => r.query?.url.includes(`sig=${SIG}`))).toBe(true);
    expect(upstream.requests.some((r) => r.query?.headers['x-api-key'] === API_KEY)).toBe(true);
    expect(scanTexts(outputs, SECRETS)).toEqual([]);

    const db = await openDb(created.url);
    try {
      expect(await scanDatabase(db.kysely, SECRETS)).toEqual([]);
      const stops = (await sql<{ name: string | null }>`SELECT name FROM efa.stops WHERE deleted_at IS NULL`.execute(db.kysely)).rows;
      expect(stops.length).toBeGreaterThan(50);
      // Redacted where the secret stood as a word; the rest of the name kept.
      expect(stops.some((s) => /^Stop \d+ \*\*\*$/.test(s.name ?? ''))).toBe(true);
      const rejects = await db.kysely.selectFrom('efa.rejects').selectAll().execute();
      expect(rejects.length).toBeGreaterThan(0);
      const tiles = await db.kysely.selectFrom('efa.run_tiles').select(['error']).where('error', 'is not', null).execute();
      expect(tiles.map((t) => t.error)).toContainEqual(expect.stringMatching(/tile store offline for sig=\*\*\* key \*\*\*/));
    } finally {
      await db.close();
    }
  }, 240_000);
});
