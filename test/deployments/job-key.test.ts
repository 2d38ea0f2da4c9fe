/**
 * Issue 55 item 4: a job naming `"deployment": "<id>"` takes the entry's keys; keys the job states win.
 * doctor compares what the server answers with what the catalogue says.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadJob } from '../../src/job/load.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { cliIn } from './cli-in.js';

const region = { bbox: [9.15, 48.75, 9.2, 48.8] };
const sweeps = { coord: { types: ['STOP'], maxPerRequest: 200 } };

describe('"deployment" in a job', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-jobkey-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const jobFile = async (name: string, job: Record<string, unknown>): Promise<string> => {
    const path = join(dir, `${name}.json`);
    await writeFile(path, JSON.stringify({ name, region, sweeps, ...job }));
    return path;
  };

  it("takes the entry's base URL, dialect, zone, rate, paths, headers and source", async () => {
    const { job } = await loadJob(await jobFile('nsw', { deployment: 'au-nsw' }));
    expect(job).toMatchObject({
      deployment: 'au-nsw', source: 'au-nsw', baseUrl: 'https://api.transport.nsw.gov.au/v1/tp/', dialect: 'rapidjson', timeZone: 'Australia/Sydney',
      rateLimit: { requestsPerSecond: 2, concurrency: 2 }, paths: { coordInfo: 'coord', stopFinder: 'stop_finder', addInfo: 'add_info' },
      headers: { Authorization: { env: 'EFA_AUTHORIZATION' } },
    });
  });

  it('keys the job states override the entry; rateLimit key by key', async () => {
    const { job } = await loadJob(await jobFile('vvs-own', { deployment: 'de-vvs', dialect: 'xml', source: 'vvs', baseUrl: 'https://example.org/efa/', rateLimit: { concurrency: 1 } }));
    expect(job).toMatchObject({ dialect: 'xml', source: 'vvs', baseUrl: 'https://example.org/efa/', timeZone: 'Europe/Berlin', rateLimit: { requestsPerSecond: 2, concurrency: 1 } });
  });

  it('an id not in the catalogue is a configuration error', async () => {
    await expect(loadJob(await jobFile('nowhere', { deployment: 'de-nowhere' }))).rejects.toThrow(ConfigError);
    await expect(loadJob(await jobFile('badid', { deployment: 'Not An Id', baseUrl: 'https://example.org/' }))).rejects.toThrow(/deployment "Not An Id" is not in the catalogue/);
  });
});

describe('doctor --deployment', () => {
  let rapid: Simulator;
  let json: Simulator;
  let dir: string;
  beforeAll(async () => {
    [rapid, json] = await Promise.all([startSimulator({ port: 0, size: 500, dialect: 'rapidjson' }), startSimulator({ port: 0, size: 500 })]);
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-doctor-dep-'));
  });
  afterAll(async () => {
    await Promise.all([rapid?.stop(), json?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  type Report = { ok: boolean; checks: { name: string; status: string; message: string; hint?: string }[] };
  const catalogue = (r: Report) => r.checks.filter((c) => c.name.startsWith('catalogue'));

  it('agrees where the server answers as the catalogue says', async () => {
    const r = await cliIn(dir, ['doctor', '--deployment', 'de-vvs', '--base-url', rapid.url, '--db', 'pglite:memory', '--json']);
    const checks = catalogue(JSON.parse(r.stdout) as Report);
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['catalogue coordInfo', 'ok'], ['catalogue stopFinder', 'ok'], ['catalogue servingLines', 'ok'], ['catalogue dialect', 'ok'],
    ]);
  });

  it('reports another dialect, and an endpoint that moved, as failures (exit 1)', async () => {
    const other = await cliIn(dir, ['doctor', '--deployment', 'de-vvs', '--base-url', json.url, '--db', 'pglite:memory', '--json']);
    expect(other.code).toBe(1);
    const checks = catalogue(JSON.parse(other.stdout) as Report);
    expect(checks.find((c) => c.name === 'catalogue coordInfo')).toMatchObject({ status: 'fail', message: 'de-vvs says rapidjson; the server answers json' });
    expect(checks.find((c) => c.name === 'catalogue dialect')).toMatchObject({ status: 'warn' });
    const moved = await cliIn(dir, ['doctor', '--deployment', 'de-vvs', '--base-url', `${json.url.replace(/\/efa\/?$/, '')}/gone/`, '--db', 'pglite:memory', '--json']);
    expect(moved.code).toBe(1);
    const endpoint = catalogue(JSON.parse(moved.stdout) as Report)[0];
    expect(endpoint).toMatchObject({ name: 'catalogue endpoint', status: 'fail' });
    expect(endpoint?.message).toContain('the endpoint has moved');
    expect(endpoint?.hint).toContain('https://www3.vvs.de/vvs/');
  });

  it('doctor on a job naming a deployment compares it too', async () => {
    await writeFile(join(dir, 'job.json'), JSON.stringify({ name: 'vvs', deployment: 'de-vvs', region, sweeps }));
    const r = await cliIn(dir, ['doctor', 'job.json', '--base-url', rapid.url, '--db', 'pglite:memory', '--json']);
    const checks = catalogue(JSON.parse(r.stdout) as Report);
    expect(checks.find((c) => c.name === 'catalogue coordInfo')).toMatchObject({ status: 'ok', message: 'answers in rapidjson, as de-vvs says' });
  });
});
