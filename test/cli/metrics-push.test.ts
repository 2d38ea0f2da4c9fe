import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPushedLastSuccess } from '../../src/report/metrics-push.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runBuiltCli } from '../helpers/cli.js';

interface Pushed {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
}

/** A stand-in Pushgateway: records what is pushed, answers `status`, and serves `exposed` on GET /metrics. */
async function startGateway(status: number, exposed = ''): Promise<{ url: string; pushed: Pushed[]; server: Server }> {
  const pushed: Pushed[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(exposed);
        return;
      }
      pushed.push({ method: req.method ?? '', path: req.url ?? '', contentType: String(req.headers['content-type']), body });
      res.writeHead(status).end(status >= 400 ? 'push rejected by test' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pushed, server };
}

/** A run starts PGlite and migrates: minutes on a machine shared by many test processes. */
const RUN_TIMEOUT_MS = 230_000;

const clean = { DATABASE_URL: undefined, EFA_BASE_URL: undefined, EFA_METRICS_FILE: undefined, EFA_METRICS_PUSH_URL: undefined, EFA_LOG_FORMAT: 'json' };

describe('run --metrics-push-url: a CronJob pod pushes its night to a Pushgateway', () => {
  let sim: Simulator;
  let dir: string;
  let jobFile: string;
  const servers: Server[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 11, size: 150 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-push-'));
    jobFile = join(dir, 'push-job.json');
    await writeFile(
      jobFile,
      JSON.stringify({
        name: 'push-job',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 200, concurrency: 4 },
        sweeps: { coord: { types: ['STOP'], maxPerRequest: 200 } },
      }),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    for (const s of servers) s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('PUTs the Prometheus text of the run to <url>/metrics/job/<job>, from EFA_METRICS_PUSH_URL', async () => {
    const gateway = await startGateway(200);
    servers.push(gateway.server);
    const r = await runBuiltCli(['run', jobFile, '--db', `pglite:${join(dir, 'db')}`], { ...clean, EFA_METRICS_PUSH_URL: `${gateway.url}/` }, RUN_TIMEOUT_MS);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(gateway.pushed).toHaveLength(1);
    const push = gateway.pushed[0]!;
    expect(push.method).toBe('PUT');
    expect(push.path).toBe('/metrics/job/push-job');
    expect(push.contentType).toContain('text/plain; version=0.0.4');
    const families = parsePrometheusTextFormat(push.body);
    const status = families.find((f) => f.name === 'efa_sync_run_status');
    expect(status?.metrics.find((m) => m.labels?.['status'] === 'succeeded')?.value).toBe('1');
    // The samples name the job as efa_job and carry no job label: the gateway adds the group's `job`
    // (a pushed job label differing from the group's is refused), and node_exporter would rename it.
    expect(status?.metrics.every((m) => m.labels?.['efa_job'] === 'push-job' && m.labels['job'] === undefined)).toBe(true);
    expect(families.find((f) => f.name === 'efa_sync_last_run_requests')?.type).toBe('GAUGE');
  }, 240_000);

  it('warns and keeps the exit code of the run when the gateway refuses the push', async () => {
    const gateway = await startGateway(500);
    servers.push(gateway.server);
    const r = await runBuiltCli(['run', jobFile, '--db', `pglite:${join(dir, 'db')}`, '--metrics-push-url', gateway.url], clean, RUN_TIMEOUT_MS);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(gateway.pushed).toHaveLength(1);
    const warning = r.stderr.split('\n').find((l) => l.includes('could not push the metrics'));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning ?? '{}')).toMatchObject({ level: 'warn' });
    expect(warning).toContain('HTTP 500');
    expect(warning).toContain("the run's exit code 0 stands");
  }, 240_000);

  it('rejects a push URL that is not http(s) with exit 2 before sweeping, naming the option', async () => {
    const r = await runBuiltCli(['run', jobFile, '--db', `pglite:${join(dir, 'db')}`], { ...clean, EFA_METRICS_PUSH_URL: 'pushgateway:9091' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--metrics-push-url');
    expect(r.stderr).not.toContain('started');
  });

  it("reads the job's last success back from the gateway's exposition, whatever the label order", async () => {
    const gateway = await startGateway(
      200,
      [
        'efa_sync_run_last_success_timestamp_seconds{instance="",job="other"} 1',
        'efa_sync_run_last_success_timestamp_seconds{instance="",job="push-job"} 1.7e+09',
      ].join('\n'),
    );
    servers.push(gateway.server);
    expect(await readPushedLastSuccess(gateway.url, 'push-job')).toBe(1.7e9);
    expect(await readPushedLastSuccess(gateway.url, 'missing')).toBeUndefined();
  });
});
