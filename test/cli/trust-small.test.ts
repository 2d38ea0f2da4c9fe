import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli as runCli } from '../helpers/cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { gridStops, startHostileUpstream, truthfulAnswer, type HostileUpstream } from '../helpers/hostile-upstream.js';

/**
 * Issue 22.4 and 22.5 (b, d), through the CLI: `plan --db` / DATABASE_URL never prints the database
 * password; a RADIAL OpArea job over a continent is refused with exit 2 naming the field and the
 * limit (it used to plan 791,765 circles and overflow the stack); a failed run says why on stderr
 * without --json.
 */

const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const DB_PASSWORD = 'planPw7';

describe('the CLI tells what it must and hides what it must not', () => {
  let dir: string;
  let created: TestDbUrl;
  let role: string | undefined;
  let dbUrl: string;
  let upstream: HostileUpstream;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-trust-small-'));
    created = await createTestDbUrl();
    dbUrl = created.url;
    if (dbKind() === 'postgres') {
      // Trust authentication accepts any password, but the password still travels in the URL.
      role = `efa_plan_${process.pid}`;
      const admin = new pg.Client({ connectionString: created.url });
      await admin.connect();
      await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}'`);
      await admin.end();
      const u = new URL(created.url);
      u.username = role;
      u.password = DB_PASSWORD;
      dbUrl = u.toString();
    }
    upstream = await startHostileUpstream(gridStops(50, REGION));
  });

  afterAll(async () => {
    await upstream?.stop();
    await created?.drop();
    if (role) {
      const admin = new pg.Client({ connectionString: created.url.replace(/\/[^/]*$/, '/postgres') });
      await admin.connect();
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const writeJob = async (name: string, job: object): Promise<string> => {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify(job));
    return file;
  };

  it.skipIf(dbKind() !== 'postgres')('plan --db and plan with DATABASE_URL never print the password', async () => {
    const file = await writeJob('plan-db', {
      name: 'plan-db',
      baseUrl: upstream.url,
      region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 50, concurrency: 1 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    });
    expect((await runCli(['migrate', '--db', dbUrl])).code).toBe(0);
    const viaOption = await runCli(['plan', file, '--db', dbUrl]);
    const viaEnv = await runCli(['plan', file], { DATABASE_URL: dbUrl });
    for (const r of [viaOption, viaEnv]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/database postgres(ql)?:\/\/efa_plan_\d+:\*\*\*@/);
      expect(r.stdout + r.stderr).not.toContain(DB_PASSWORD);
    }
  }, 120_000);

  it('plan and run refuse a RADIAL OpArea sweep over a continent with exit 2, naming the field and the limit', async () => {
    const file = await writeJob('continent', {
      name: 'continent',
      baseUrl: upstream.url,
      region: { bbox: [-25, 34, 45, 72] },
      rateLimit: { requestsPerSecond: 50, concurrency: 1 },
      sweeps: { opArea: { mode: 'RADIAL' } },
    });
    const plan = await runCli(['plan', file]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toMatch(/sweeps\.opArea: mode RADIAL over this region needs about [\d,]+ circles .* more than the limit of 20,000: use mode ALL/);
    expect(plan.stderr).not.toMatch(/Maximum call stack/);
    const before = upstream.requests.length;
    const run = await runCli(['run', file, '--db', dbUrl]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/limit of 20,000/);
    expect(upstream.requests.length).toBe(before);
    // A region of a city still plans its circles.
    const city = await writeJob('city', {
      name: 'city',
      baseUrl: upstream.url,
      region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 50, concurrency: 1 },
      sweeps: { opArea: { mode: 'RADIAL' } },
    });
    const cityPlan = await runCli(['plan', city]);
    expect(cityPlan.code, cityPlan.stderr).toBe(0);
    expect(cityPlan.stdout).toMatch(/OpArea RADIAL: \d+ circles of up to \d+ m/);
  }, 120_000);

  it('a failed run prints why without --json', async () => {
    const file = await writeJob('fails', {
      name: 'fails',
      baseUrl: upstream.url,
      region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 200, concurrency: 1, retries: 0, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    });
    // The probe (max=1 at the centre) is answered; every box of the sweep itself fails.
    upstream.behave((q, truthful) => (q.max <= 1 ? truthfulAnswer(q, truthful) : { status: 500, body: 'upstream broke: tile store offline' }));
    const r = await runCli(['run', file, '--db', dbUrl], { EFA_LOG_FORMAT: 'json' });
    upstream.behave(truthfulAnswer);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    const why = lines.find((l) => /^run \d+ failed: /.test(l.msg));
    expect(why?.level).toBe('error');
    expect(why?.msg).toMatch(/unit\(s\) failed after retries/);
  }, 120_000);
});
