import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadJob, validateJob } from '../../src/job/index.js';
import { jsonErrorLocation } from '../../src/job/load.js';
import { minTileOf } from '../../src/tiling/index.js';

const valid = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1:8080/efa',
  region: { bbox: [9.05, 48.7, 9.3, 48.85] },
  rateLimit: { requestsPerSecond: 10, concurrency: 4 },
  sweeps: {
    coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 500 },
    opArea: { mode: 'ALL', geometry: true },
    servingLines: { forStops: true },
    addInfo: { publicationStatus: 'current' },
  },
};

function fieldOf(input: unknown): { field?: string; message: string } {
  try {
    validateJob(input, 'job.json');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const err = e as ConfigError;
    expect(err.exitCode).toBe(2);
    return { ...(err.field !== undefined ? { field: err.field } : {}), message: err.message };
  }
  throw new Error('expected a ConfigError');
}

describe('job validation', () => {
  it('accepts the contract example and applies defaults', () => {
    const job = validateJob(valid);
    expect(job.rateLimit).toEqual({ requestsPerSecond: 10, concurrency: 4, retries: 4, timeoutMs: 30_000 });
    // Left out, the minimum tile is 0.002° and follows the density below it; set, it is a hard floor.
    expect(minTileOf(job.sweeps.coord ?? {})).toEqual({ minTileSizeDeg: 0.002, followDensity: true });
    expect(minTileOf({ minTileSizeDeg: 0.01 })).toEqual({ minTileSizeDeg: 0.01, followDensity: false });
    expect(job.sweeps.servingLines?.lineNames).toEqual([]);
  });

  it('rejects an unknown key, naming it', () => {
    const r = fieldOf({ ...valid, sweeps: { ...valid.sweeps, coord: { ...valid.sweeps.coord, maxPerReqest: 5 } } });
    expect(r.field).toBe('sweeps.coord.maxPerReqest');
    expect(r.message).toContain('unknown key "sweeps.coord.maxPerReqest"');
  });

  it('rejects a bbox with min > max, naming the field', () => {
    const r = fieldOf({ ...valid, region: { bbox: [9.3, 48.7, 9.05, 48.85] } });
    expect(r.message).toContain('region.bbox.0');
    expect(r.message).toContain('minLon 9.3 must be < maxLon 9.05');
  });

  it('rejects a latitude outside ±90', () => {
    const r = fieldOf({ ...valid, region: { bbox: [9.05, -91, 9.3, 48.85] } });
    expect(r.message).toMatch(/region\.bbox\.1: latitude must be >= -90/);
  });

  it('rejects a rate of 0', () => {
    const r = fieldOf({ ...valid, rateLimit: { requestsPerSecond: 0, concurrency: 4 } });
    expect(r.field).toBe('rateLimit.requestsPerSecond');
    expect(r.message).toContain('requestsPerSecond must be > 0');
  });

  it('refuses a literal credential in a header, asking for an environment variable', () => {
    for (const name of ['Authorization', 'X-Api-Key', 'X-Auth-Token', 'Cookie', 'client-secret']) {
      const r = fieldOf({ ...valid, headers: { [name]: 'literal-credential-123' } });
      expect(r.field, name).toBe(`headers.${name}`);
      expect(r.message, name).toMatch(/use \{ "env": "EFA_[A-Z_]+" \}/);
      expect(r.message, name).not.toContain('literal-credential-123');
    }
  });

  it('allows credential headers from the environment and harmless literal headers', () => {
    const job = validateJob({ ...valid, headers: { Authorization: { env: 'EFA_AUTH' }, 'Accept-Language': 'de', 'X-Client-Name': 'nightly' } });
    expect(job.headers).toEqual({ Authorization: { env: 'EFA_AUTH' }, 'Accept-Language': 'de', 'X-Client-Name': 'nightly' });
  });

  it('accepts credentials in baseUrl (user info, apikey parameter): redaction handles them', () => {
    const job = validateJob({ ...valid, baseUrl: 'https://user:pw@efa.example/efa?apikey=abc&sig=x' });
    expect(job.baseUrl).toBe('https://user:pw@efa.example/efa?apikey=abc&sig=x');
  });

  it('rejects parking realtime without info', () => {
    const r = fieldOf({ ...valid, sweeps: { coord: { ...valid.sweeps.coord, parking: { info: false, realtime: true } } } });
    expect(r.message).toContain('parking.realtime requires parking.info');
  });
});

describe('loading job files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-jobs-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('loads a JSON job with a GeoJSON region file relative to it', async () => {
    const polygon = { type: 'Polygon', coordinates: [[[9.1, 48.7], [9.2, 48.7], [9.2, 48.8], [9.1, 48.7]]] };
    await writeFile(join(dir, 'area.geojson'), JSON.stringify({ type: 'Feature', properties: {}, geometry: polygon }));
    await writeFile(join(dir, 'j.json'), JSON.stringify({ ...valid, region: { geojson: 'area.geojson' } }));
    const loaded = await loadJob(join(dir, 'j.json'));
    expect(loaded.region).toEqual({ geojson: polygon });
    expect(loaded.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('loads a TS job module exporting defineJob', async () => {
    const src = `import { defineJob } from ${JSON.stringify(new URL('../../src/job/index.ts', import.meta.url).pathname)};
export default defineJob(${JSON.stringify({ ...valid, name: 'from-ts' })});`;
    await writeFile(join(dir, 'j.ts'), src);
    const loaded = await loadJob(join(dir, 'j.ts'));
    expect(loaded.job.name).toBe('from-ts');
    expect(loaded.job.sweeps.coord?.maxPerRequest).toBe(500);
  });

  it('refuses a region path that climbs out of the job directory, naming the field, without reading it', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'efa-sync-outside-'));
    try {
      await writeFile(join(outside, 'secret.txt'), 'root:x:0:0:TOPSECRET');
      const escape = relative(dir, join(outside, 'secret.txt'));
      expect(escape.startsWith('..')).toBe(true);
      await writeFile(join(dir, 'escape.json'), JSON.stringify({ ...valid, region: { geojson: escape } }));
      const error = await loadJob(join(dir, 'escape.json')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).field).toBe('region.geojson');
      expect((error as ConfigError).message).toMatch(/leaves the job file's directory/);
      expect((error as ConfigError).message).not.toContain('root:x');

      await writeFile(join(dir, 'passwd.json'), JSON.stringify({ ...valid, region: { geojson: '../../../../../../../../etc/passwd' } }));
      const passwd = await loadJob(join(dir, 'passwd.json')).catch((e: unknown) => e);
      expect(passwd).toBeInstanceOf(ConfigError);
      expect((passwd as ConfigError).field).toBe('region.geojson');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('says where a region file is not JSON, never what it holds', async () => {
    await writeFile(join(dir, 'notes.geojson'), 'root:x:0:0:TOPSECRET:/root:/bin/bash\n');
    await writeFile(join(dir, 'bad-region.json'), JSON.stringify({ ...valid, region: { geojson: 'notes.geojson' } }));
    const error = await loadJob(join(dir, 'bad-region.json')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(/not valid JSON at line 1, column 1$/);
    expect(message).not.toMatch(/root|TOPSECRET/);
  });

  it('says where a job file is not JSON, never what it holds', async () => {
    await writeFile(join(dir, 'broken.json'), '{\n  "name": "demo",\n  "token": SECRETTOKEN\n}');
    const error = await loadJob(join(dir, 'broken.json')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/not valid JSON at line 3, column 12$/);
    expect((error as ConfigError).message).not.toContain('SECRETTOKEN');
  });

  it('finds a job by name under jobs/', async () => {
    const loaded = await loadJob('demo');
    expect(loaded.job.name).toBe('demo');
    expect(loaded.file).toMatch(/jobs\/demo\.json$/);
  });

  it('names a missing job', async () => {
    await expect(loadJob('no-such-job')).rejects.toThrow(/job "no-such-job" not found/);
  });
});

describe('jsonErrorLocation', () => {
  it('finds the first offending character, or says the text is cut short', () => {
    expect(jsonErrorLocation('{"a": 1,\n "b" 2}')).toBe('at line 2, column 6');
    expect(jsonErrorLocation('{"a": [1, 2')).toBe('at the end (the text is cut short)');
    expect(jsonErrorLocation('{"a": tru}')).toBe('at line 1, column 10');
    expect(jsonErrorLocation('{"a": 1} x')).toBe('at line 1, column 10');
    expect(jsonErrorLocation('{"a": "x\\q"}')).toBe('at line 1, column 10');
  });
});
