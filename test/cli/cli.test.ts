import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('the command line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-cli-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('lists the commands of the contract', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const commands = [...r.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
    expect(commands).toEqual(['run', 'plan', 'migrate', 'runs', 'sim', 'lookup', 'report', 'grant-reader', 'serve', 'doctor', 'export', 'history', 'deployments', 'init', 'db', 'help']);
  });

  it('exits 2 naming the field of a bad job file', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'bad',
        baseUrl: 'http://127.0.0.1:9/efa',
        region: { bbox: [9, 48, 9.1, 48.1] },
        rateLimit: { requestsPerSecond: 0, concurrency: 1 },
        sweeps: {},
      }),
    );
    const r = await runCli(['run', file, '--db', 'pglite:memory']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rateLimit.requestsPerSecond');
  });

  it('exits 2 on an unknown option and on an unsupported database URL', async () => {
    expect((await runCli(['runs', '--no-such-option'])).code).toBe(2);
    const r = await runCli(['migrate', '--db', 'mysql://x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unsupported database URL');
  });

  it('plan prints tiles and a budget without sending a request', async () => {
    const r = await runCli(['plan', 'demo']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('initial CoordInfo tiles');
    expect(r.stdout).toMatch(/total\s+\d+/);
  });

  it('report names a missing run with exit 2', async () => {
    const r = await runCli(['report', '--db', 'pglite:memory', '--run', 'abc']);
    expect(r.code).toBe(2);
  });
});
