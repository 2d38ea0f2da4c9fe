import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/** A loopback port nothing listens on: taken from the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The wall time the probe's verdict may take beyond opening and migrating the database. */
const probeBudgetMs = 5_000;

describe('fail fast on an upstream that is not there (built CLI)', () => {
  let db: TestDbUrl;
  let dir: string;
  let job: string;
  /** What opening and migrating this database costs by itself (PGlite starts inside the process). */
  let openMs = 0;
  beforeAll(async () => {
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-failfast-'));
    job = join(dir, 'ff.json');
    // Every operation, with the job's default of four retries: today's probe tried each in turn, with backoff.
    await writeFile(
      job,
      JSON.stringify({
        name: 'ff',
        baseUrl: 'http://127.0.0.1:1/efa',
        region: { bbox: [9.05, 48.7, 9.3, 48.85] },
        rateLimit: { requestsPerSecond: 10, concurrency: 4 },
        sweeps: {
          coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 200 },
          stopFinder: { names: ['Hauptbahnhof'] },
          servingLines: { forStops: true },
          addInfo: { publicationStatus: 'current' },
          opArea: { mode: 'ALL' },
        },
      }),
    );
    const migrated = await runBuiltCli(['migrate', '--db', db.url]);
    expect(migrated.code, migrated.stderr).toBe(0);
    // Starting Node and opening the database is not the probe's to answer for: the embedded database's
    // own start, and on a loaded machine the process start (measured the same way, on either database).
    openMs = (await runBuiltCli(['migrate', '--db', db.url])).ms;
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const cases: [string, () => Promise<string>, RegExp][] = [
    ['a refused port', async () => `http://127.0.0.1:${await closedPort()}/efa`, /no connection \(ECONNREFUSED\)/],
    ['a host name that does not resolve', async () => 'http://efa-sync-test.invalid/efa', /the host name does not resolve \(ENOTFOUND\)/],
  ];
  // Contract section 2 (issue 30): an upstream that cannot be reached now is a temporary failure, exit 75
  // (EX_TEMPFAIL), which the shipped systemd unit and CronJob retry; until then it was exit 2 (configuration),
  // which they never retry, so an EFA server in its maintenance window cost the night.
  for (const [what, baseUrl, said] of cases) {
    it(`${what}: exit 75 (try again later) within ${probeBudgetMs / 1000} s, every operation named, no run opened`, async () => {
      const r = await runBuiltCli(['run', job, '--base-url', await baseUrl(), '--db', db.url, '--log-format', 'json']);
      expect(r.code, r.stderr.slice(-1500)).toBe(75);
      const last = jsonLines(r.stderr).at(-1);
      expect(last).toMatchObject({ level: 'error', error: 'UpstreamUnavailableError', exitCode: 75 });
      for (const operation of ['coordInfo', 'stopFinder', 'addInfo', 'opArea']) expect(String(last?.['msg'])).toMatch(new RegExp(`${operation}: ${said.source}`));
      expect(String(last?.['msg'])).toContain('try again later');
      expect(r.ms - openMs).toBeLessThan(probeBudgetMs);
      const runs = await runBuiltCli(['runs', '--db', db.url, '--json']);
      expect(JSON.parse(runs.stdout)).toEqual([]);
    }, 120_000);
  }

  it('a database that refuses the connection before any run: exit 75, an honest line (nothing started, no "resumes")', async () => {
    const r = await runBuiltCli(['run', job, '--db', `postgres://efa:hunter2@127.0.0.1:${await closedPort()}/efa`, '--log-format', 'json']);
    expect(r.code, r.stderr.slice(-1500)).toBe(75);
    const last = jsonLines(r.stderr).at(-1);
    expect(last).toMatchObject({ level: 'error', error: 'DatabaseUnavailableError', exitCode: 75 });
    expect(String(last?.['msg'])).toMatch(/^cannot reach the database postgres:\/\/efa:\*\*\*@127\.0\.0\.1:\d+\/efa \(connect ECONNREFUSED[^)]*\): nothing was started for job ff; try again later/);
    expect(String(last?.['msg'])).not.toMatch(/lost the database|resumes/);
    expect(r.stderr).not.toContain('hunter2');
  }, 120_000);

  it('every operation answering 503 at the start: exit 75; a 404 stays a configuration error, exit 2', async () => {
    for (const [status, code, error] of [[503, 75, 'UpstreamUnavailableError'], [404, 2, 'UpstreamConfigError']] as const) {
      const server = createHttpServer((_req, res) => res.writeHead(status, { 'content-type': 'text/plain' }).end('down for maintenance'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const quick = join(dir, `quick-${status}.json`);
        // No retries: the probe's verdict after one answer per operation.
        await writeFile(quick, JSON.stringify({ name: `q${status}`, baseUrl: `http://127.0.0.1:${port}/efa`, region: { bbox: [9.05, 48.7, 9.3, 48.85] },
          rateLimit: { requestsPerSecond: 10, concurrency: 2, retries: 0 }, sweeps: { addInfo: { publicationStatus: 'current' }, opArea: { mode: 'ALL' } } }));
        const r = await runBuiltCli(['run', quick, '--db', db.url, '--log-format', 'json']);
        expect(r.code, r.stderr.slice(-1500)).toBe(code);
        expect(jsonLines(r.stderr).at(-1)).toMatchObject({ level: 'error', error, exitCode: code });
        expect(String(jsonLines(r.stderr).at(-1)?.['msg'])).toContain(`HTTP ${status}`);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  }, 120_000);
});
