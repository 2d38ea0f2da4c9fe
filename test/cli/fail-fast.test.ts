import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

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
    // PostgreSQL answers at once; the embedded database's own start is not the probe's to answer for.
    openMs = dbKind() === 'pglite' ? (await runBuiltCli(['migrate', '--db', db.url])).ms : 0;
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const cases: [string, () => Promise<string>, RegExp][] = [
    ['a refused port', async () => `http://127.0.0.1:${await closedPort()}/efa`, /no connection \(ECONNREFUSED\)/],
    ['a host name that does not resolve', async () => 'http://efa-sync-test.invalid/efa', /the host name does not resolve \(ENOTFOUND\)/],
  ];
  for (const [what, baseUrl, said] of cases) {
    it(`${what}: exit 2 within ${probeBudgetMs / 1000} s, every operation named`, async () => {
      const r = await runBuiltCli(['run', job, '--base-url', await baseUrl(), '--db', db.url, '--log-format', 'json']);
      expect(r.code, r.stderr.slice(-1500)).toBe(2);
      const last = jsonLines(r.stderr).at(-1);
      expect(last).toMatchObject({ level: 'error', error: 'UpstreamConfigError', exitCode: 2 });
      for (const operation of ['coordInfo', 'stopFinder', 'addInfo', 'opArea']) expect(String(last?.['msg'])).toMatch(new RegExp(`${operation}: ${said.source}`));
      expect(r.ms - openMs).toBeLessThan(probeBudgetMs);
    }, 120_000);
  }
});
