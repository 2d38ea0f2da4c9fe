import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { builtCli } from '../helpers/built-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A TCP relay in front of PostgreSQL that can be pulled like a network cable. */
async function startRelay(target: URL): Promise<{ port: number; cut: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

describe.skipIf(dbKind() !== 'postgres')('losing the database in the middle of a run', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    // Slow answers keep the run in its sweep long enough to pull the cable there.
    sim = await startSimulator({ port: 0, seed: 9, size: 1200, faults: 'latency=40-80' });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-dblost-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends with exit 1 and one line naming the database (redacted) and the resume; the next run resumes', async () => {
    const file = join(dir, 'lost.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'lost',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 20, concurrency: 2 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true } },
      }),
    );
    const direct = new URL(db.url);
    const relay = await startRelay(direct);
    const viaRelay = new URL(db.url);
    viaRelay.host = `127.0.0.1:${relay.port}`;
    viaRelay.password = 'hunter2';

    const child = spawn(process.execPath, [builtCli, 'run', file, '--db', viaRelay.toString(), '--log-format', 'json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: undefined, EFA_DEBUG: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let cut = false;
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!cut && /"msg":"coordInfo: /.test(stderr)) {
        cut = true;
        setTimeout(() => void relay.cut(), 1_500);
      }
    });
    const code = await done;
    expect(cut, stderr.slice(-1500)).toBe(true);
    expect(code, stderr.slice(-1500)).toBe(1);
    const last = JSON.parse(stderr.trimEnd().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(last).toMatchObject({ level: 'error', error: 'DatabaseUnavailableError', exitCode: 1 });
    expect(String(last['msg'])).toContain(`lost the database postgres://${viaRelay.username}:***@127.0.0.1:${relay.port}/`);
    expect(String(last['msg'])).toContain('the next `efa-sync run` of job lost resumes');
    expect(stderr).not.toContain('hunter2');
    expect(stderr).not.toMatch(/\n\s+at /);

    const next = await runCli(['run', file, '--db', db.url, '--json'], { DATABASE_URL: undefined });
    expect(next.code, next.stderr.slice(-1500)).toBe(0);
    expect(next.stderr).toMatch(/resuming run \d+ of job lost/);
  }, 400_000);
});
