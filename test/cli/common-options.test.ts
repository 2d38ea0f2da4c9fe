import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { jsonLines, runBuiltCli, spawnBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

/** The first line a long-running command (sim, serve) prints on `stream`, then the command is stopped. */
async function firstLine(args: readonly string[], stream: 'stdout' | 'stderr', env: NodeJS.ProcessEnv = {}): Promise<{ line: string; other: string }> {
  const child = spawnBuiltCli(args, env);
  child.stdin.end();
  let text = '';
  let other = '';
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line on ${stream}: ${other.slice(-800)}`)), 60_000);
    child[stream].on('data', (d: Buffer) => {
      text += d.toString();
      const at = text.indexOf('\n');
      if (at >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, at));
      }
    });
    child[stream === 'stdout' ? 'stderr' : 'stdout'].on('data', (d: Buffer) => (other += d.toString()));
    child.on('close', (code) => reject(new Error(`exited ${code}: ${other.slice(-800)}`)));
  });
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
  return { line, other };
}

describe('one definition of the common options, on every command (built CLI)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let noBaseJob: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 4, size: 400 });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-common-'));
    noBaseJob = join(dir, 'no-base.json');
    // No baseUrl at all: Compose and Kubernetes give it per deployment, through the environment.
    await writeFile(
      noBaseJob,
      JSON.stringify({
        name: 'nobase',
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 100, concurrency: 4 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 } },
      }),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('an option value that is wrong names where it came from: the variable, or the flag', async () => {
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['run', noBaseJob], { EFA_RPS: 'abc' }, 'EFA_RPS: expected a positive number, got "abc"'],
      [['run', noBaseJob, '--rps', 'abc'], {}, '--rps: expected a positive number, got "abc"'],
      [['run', noBaseJob], { EFA_CONCURRENCY: '-1' }, 'EFA_CONCURRENCY: expected a positive number, got "-1"'],
      [['run', noBaseJob], { EFA_BASE_URL: 'ftp://efa.example/efa' }, 'EFA_BASE_URL: expected an http(s) URL, got a ftp: URL'],
      [['doctor', noBaseJob, '--base-url', 'not a url'], {}, '--base-url: expected an http(s) URL'],
      [['run', noBaseJob], { EFA_STATEMENT_TIMEOUT: 'soon' }, 'EFA_STATEMENT_TIMEOUT: expected a number of seconds'],
    ];
    for (const [args, env, message] of cases) {
      const r = await runBuiltCli([...args, '--log-format', 'json'], env);
      expect(r.code, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`).toBe(2);
      const [line] = jsonLines(r.stderr);
      expect(line).toMatchObject({ level: 'error', error: 'ConfigError', exitCode: 2 });
      expect(String(line?.['msg'])).toContain(message);
    }
  }, 120_000);

  it('a job without baseUrl takes it from $EFA_BASE_URL or --base-url; with neither, the error says where to set it', async () => {
    const missing = await runBuiltCli(['run', noBaseJob, '--db', db.url, '--log-format', 'json']);
    expect(missing.code).toBe(2);
    expect(String(jsonLines(missing.stderr)[0]?.['msg'])).toContain('baseUrl: not set: give it in the job, or with --base-url or $EFA_BASE_URL');

    const fromEnv = await runBuiltCli(['run', noBaseJob, '--db', db.url, '--json', '--log-format', 'json'], { EFA_BASE_URL: sim.url }, 240_000);
    expect(fromEnv.code, fromEnv.stderr.slice(-1500)).toBe(0);
    expect((JSON.parse(fromEnv.stdout) as RunSummary).status).toBe('succeeded');

    const planned = await runBuiltCli(['plan', noBaseJob, '--base-url', sim.url, '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ job: 'nobase' });
  }, 300_000);

  it('--json everywhere: EFA_JSON, report --json names the file, sim --json its address and world', async () => {
    const report = join(dir, 'report.html');
    const r = await runBuiltCli(['report', '--out', report, '--db', db.url, '--log-format', 'json'], { EFA_JSON: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file: report, runId: expect.stringMatching(/^\d+$/) as unknown });

    const { line, other } = await firstLine(['sim', '--port', '0', '--size', '200', '--json', '--log-format', 'json'], 'stdout');
    const started = JSON.parse(line) as { url: string; pins: number; bbox: number[] };
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/efa$/);
    expect(started.pins).toBeGreaterThan(0);
    expect(started.bbox).toHaveLength(4);
    // --log-format json on sim: its log lines are JSON objects.
    expect(jsonLines(other)[0]).toMatchObject({ level: 'info' });
  }, 120_000);

  it.skipIf(dbKind() !== 'pglite')('serve takes --log-format (and $EFA_LOG_FORMAT)', async () => {
    const { line } = await firstLine(['serve', '--port', '0', '--db', db.url], 'stderr', { EFA_LOG_FORMAT: 'json' });
    expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'serving the embedded database' });
  }, 120_000);

  it('doctor honours $EFA_DIALECT like run: the simulator answers json, the job is read as legacy', async () => {
    const plain = await runBuiltCli(['doctor', noBaseJob, '--db', db.url, '--json'], { EFA_BASE_URL: sim.url });
    const plainChecks = (JSON.parse(plain.stdout) as { checks: { name: string; status: string }[] }).checks;
    expect(plainChecks.find((c) => c.name === 'coordInfo')?.status).toBe('ok');

    const legacy = await runBuiltCli(['doctor', noBaseJob, '--db', db.url, '--json'], { EFA_BASE_URL: sim.url, EFA_DIALECT: 'legacy' });
    expect(legacy.code).toBe(1);
    const coord = (JSON.parse(legacy.stdout) as { checks: { name: string; status: string; message: string }[] }).checks.find((c) => c.name === 'coordInfo');
    expect(coord?.status).toBe('fail');
    expect(coord?.message).toContain('the job reads legacy');
  }, 120_000);
});
