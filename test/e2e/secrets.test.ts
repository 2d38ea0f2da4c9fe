import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { gridStops, startHostileUpstream, truthfulAnswer, type HostileUpstream } from '../helpers/hostile-upstream.js';
import { scanDatabase, scanTexts } from '../util/secret-scan.js';

/**
 * Issue 10, the secrets test: a password in DATABASE_URL, user info and `?apikey=` in baseUrl and a
 * header from the environment; runs that succeed, end partial, fail at the probe (401), fail on an
 * unreachable database, and the readers (`runs --json`, `report --out`, `--metrics-file`). Every
 * output channel and every efa.* relation is searched for each secret: zero hits.
 *
 * The upstream echoes what it was sent (URL and headers) in its error bodies, as real gateways do,
 * so a secret reaches efa-sync's error paths through the reply too. On PGlite there is no database
 * password of the test database; the unreachable-database run still carries one in its --db URL.
 */

const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const DB_PASSWORD = 'dbPassw0rdSecretXq7';
const URL_PASSWORD = 'urlPassw0rdSecretK9';
const API_KEY = 'apiKeySecretValue55';
const HEADER_TOKEN = 'headerTokenSecret31';
const BASIC = Buffer.from(`efauser:${URL_PASSWORD}`).toString('base64');
const SECRETS = [DB_PASSWORD, URL_PASSWORD, API_KEY, HEADER_TOKEN, BASIC];

describe('secrets never reach an output channel or a table', () => {
  let upstream: HostileUpstream;
  let created: TestDbUrl;
  let dbUrl: string;
  let role: string | undefined;
  let dir: string;
  const outputs: Record<string, string> = {};

  const record = (name: string, r: CliResult): CliResult => {
    outputs[`${name} stdout`] = r.stdout;
    outputs[`${name} stderr`] = r.stderr;
    return r;
  };

  beforeAll(async () => {
    upstream = await startHostileUpstream(gridStops(400, REGION));
    created = await createTestDbUrl();
    dbUrl = created.url;
    if (dbKind() === 'postgres') {
      // Trust authentication accepts any password, but the password still travels in the URL.
      role = `efa_secret_${process.pid}`;
      const admin = new pg.Client({ connectionString: created.url });
      await admin.connect();
      await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}'`);
      await admin.end();
      const u = new URL(created.url);
      u.username = role;
      u.password = DB_PASSWORD;
      dbUrl = u.toString();
    }
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-secrets-'));
  });
  afterAll(async () => {
    await upstream?.stop();
    await created?.drop();
    if (role) {
      const admin = new pg.Client({ connectionString: (inject('dbTarget') as { url: string }).url });
      await admin.connect();
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('in every run outcome, the readers, the metrics file, the report and schema efa', async () => {
    const base = new URL(upstream.url);
    base.username = 'efauser';
    base.password = URL_PASSWORD;
    base.searchParams.set('apikey', API_KEY);
    const job = {
      name: 'secrets',
      baseUrl: base.toString(),
      region: { bbox: [...REGION] },
      headers: { 'X-Api-Token': { env: 'EFA_TEST_API_TOKEN' } },
      rateLimit: { requestsPerSecond: 200, concurrency: 2, retries: 0, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    };
    const file = join(dir, 'secrets.json');
    await writeFile(file, JSON.stringify(job));
    const metrics = join(dir, 'metrics.prom');
    const report = join(dir, 'report.html');
    const env = { DATABASE_URL: dbUrl, EFA_TEST_API_TOKEN: HEADER_TOKEN, EFA_LOG_FORMAT: 'json' };
    const run = (extra: string[] = []): Promise<CliResult> => runCli(['run', file, '--json', '--metrics-file', metrics, ...extra], env);

    // Succeeds.
    expect(record('run ok', await run()).code).toBe(0);
    outputs['metrics after ok'] = await readFile(metrics, 'utf8');

    // Partial: the tiles at one corner (not the first, whole-region tile) answer 500 with a body
    // echoing the request and its headers.
    upstream.behave((q, truthful) =>
      q.bbox[0] <= 9.105 && q.bbox[1] <= 48.705 && (q.bbox[2] - q.bbox[0]) * (q.bbox[3] - q.bbox[1]) < 0.005
        ? { status: 500, body: JSON.stringify({ message: `internal error for ${q.url}`, headers: q.headers }) }
        : truthfulAnswer(q, truthful),
    );
    const partial = record('run partial', await run(['--full']));
    expect(partial.code, partial.stderr.slice(-500)).toBe(3);
    // The echoed secrets did reach efa-sync's error path, and left it masked.
    expect(partial.stderr).toMatch(/internal error for \/efa\/XML_COORD_REQUEST\?apikey=\*\*\*/);
    outputs['metrics after partial'] = await readFile(metrics, 'utf8');

    // Refused at the probe: 401 with the credentials echoed.
    upstream.behave((q) => ({ status: 401, body: JSON.stringify({ message: `bad credentials ${q.url}`, headers: q.headers }) }));
    expect(record('run 401', await run()).code).toBe(2);

    // The database cannot be reached: a password in a URL that goes nowhere (on both databases).
    const unreachable = `postgres://efa:${DB_PASSWORD}@127.0.0.1:1/efa`;
    const lost = record('run no database', await runCli(['run', file, '--json', '--db', unreachable], { EFA_TEST_API_TOKEN: HEADER_TOKEN }));
    expect(lost.code).not.toBe(0);

    // The readers.
    expect(record('runs --json', await runCli(['runs', '--json'], env)).code).toBe(0);
    const reported = record('report', await runCli(['report', '--out', report], env));
    expect(reported.code, reported.stderr.slice(-500)).toBe(0);
    outputs['report.html'] = await readFile(report, 'utf8');

    // The secrets were really in play: sent to the upstream (so a leak would have had a source).
    const sentUrls = upstream.requests.map((r) => r.query?.url ?? '').join('\n');
    expect(sentUrls).toContain(API_KEY);
    expect(scanTexts(outputs, SECRETS)).toEqual([]);

    const db = await openDb(created.url);
    try {
      const runs = await db.kysely.selectFrom('efa.runs').select(['status']).orderBy('run_id').execute();
      expect(runs.map((r) => r.status)).toEqual(['succeeded', 'partial']);
      expect(await scanDatabase(db.kysely, SECRETS)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 240_000);
});
