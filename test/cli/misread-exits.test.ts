import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

describe('exit codes a scheduler must not misread (built CLI)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 8, size: 500 });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-exits-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const job = async (name: string, bbox: readonly number[]): Promise<string> => {
    const file = join(dir, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify({
        name,
        baseUrl: sim.url,
        region: { bbox },
        rateLimit: { requestsPerSecond: 100, concurrency: 4 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 } },
      }),
    );
    return file;
  };

  it.skipIf(dbKind() !== 'postgres')('a database that does not exist, or a role the server refuses: exit 2 with what to do, the user name shown', async () => {
    const server = new URL(process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    const file = await job('nodb', [...sim.world.bbox]);

    const missing = new URL(server);
    missing.pathname = '/efa_sync_no_such_database';
    missing.password = '';
    const r = await runBuiltCli(['run', file, '--db', missing.toString(), '--log-format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    // The first error line (an info line says which job file was loaded, issue 29 point 14).
    const line = jsonLines(r.stderr).find((l) => l['level'] === 'error');
    expect(line).toMatchObject({ level: 'error', error: 'DatabaseRefusedError', exitCode: 2 });
    expect(String(line?.['msg'])).toContain('database "efa_sync_no_such_database" does not exist');
    expect(String(line?.['msg'])).toContain('create it (createdb');
    // No password in the URL: the role is no secret, and the operator needs to see it.
    expect(String(line?.['msg'])).toContain(`postgres://${server.username}@${server.host}/efa_sync_no_such_database`);
    expect(r.stderr).not.toContain('lost the database');

    const stranger = new URL(server);
    stranger.username = 'efa_sync_no_such_role';
    stranger.password = 'hunter2';
    const refused = await runBuiltCli(['run', file, '--db', stranger.toString(), '--log-format', 'json']);
    expect(refused.code, refused.stderr).toBe(2);
    const refusal = jsonLines(refused.stderr).find((l) => l['level'] === 'error');
    expect(refusal).toMatchObject({ error: 'DatabaseRefusedError', exitCode: 2 });
    expect(String(refusal?.['msg'])).toContain('refused user efa_sync_no_such_role');
    expect(String(refusal?.['msg'])).toContain('check the user name and password');
    expect(refused.stderr).not.toContain('hunter2');
  }, 120_000);

  it('a bbox given [lat, lon, lat, lon] that cannot be [lon, lat, …]: exit 2 naming the order', async () => {
    // Tokyo as a map tool shows it: latitude first. 139.6 is no latitude.
    const r = await runBuiltCli(['run', await job('tokyo', [35.6, 139.6, 35.8, 139.9]), '--db', db.url, '--log-format', 'json']);
    expect(r.code).toBe(2);
    const msg = String(jsonLines(r.stderr)[0]?.['msg']);
    expect(msg).toContain('region.bbox.1: latitude must be <= 90');
    expect(msg).toContain('[minLon, minLat, maxLon, maxLat]');
  });

  it('a region swapped into a valid box elsewhere answers nothing: not a success, the message names the order and the swapped box', async () => {
    const [minLon, minLat, maxLon, maxLat] = sim.world.bbox;
    const swapped = [minLat, minLon, maxLat, maxLon];
    const r = await runBuiltCli(['run', await job('swapped', swapped), '--db', db.url, '--json', '--log-format', 'json'], {}, 240_000);
    expect(r.code, r.stderr.slice(-1500)).toBe(3);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.coord?.pins).toBe(0);
    expect(summary.exitCode).toBe(3);
    const warning = jsonLines(r.stderr).find((l) => String(l['msg']).includes('answered no object at all'));
    expect(warning).toMatchObject({ level: 'warn' });
    expect(String(warning?.['msg'])).toContain('region.bbox is read as [minLon, minLat, maxLon, maxLat]');
    expect(String(warning?.['msg'])).toContain(`the box is [${[minLon, minLat, maxLon, maxLat].join(', ')}]`);
  }, 300_000);
});
