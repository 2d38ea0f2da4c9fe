/**
 * Issue 55, acceptance: from a fresh folder to a finished night in three commands, the simulator
 * standing in for VVS through --base-url: `deployments --near` → `init de-vvs --around` → `run`.
 * The built CLI, started in an empty folder as a new user's shell would be.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { cliIn } from './cli-in.js';

describe('three commands from a fresh folder to a first night', () => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    // VVS's entry says rapidjson: the simulator speaks it, so the job runs unchanged.
    sim = await startSimulator({ port: 0, seed: 1, size: 3000, dialect: 'rapidjson' });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-three-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('deployments --near 9.18,48.78 lists VVS first', async () => {
    const r = await cliIn(dir, ['deployments', '--near', '9.18,48.78']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => /^[a-z]{2}-/.test(l));
    expect(rows[0]?.split(/\s+/)[0]).toBe('de-vvs');
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(expect.arrayContaining(['de-vvs', 'de-bwegt', 'de-nvbw']));
    expect(rows.every((l) => l.trimEnd().endsWith('inside'))).toBe(true);
  });

  it('init de-vvs --around "Stuttgart Hbf" writes a job that says what plan would, and never overwrites it', async () => {
    const r = await cliIn(dir, ['init', 'de-vvs', '--around', 'Stuttgart Hbf', '--radius', '5', '--base-url', sim.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote jobs\/de-vvs\.json: de-vvs, 5 km around Stuttgart, /m);
    expect(r.stdout).toMatch(/plan: 1 tile to start, at least \d+ requests?, at least \d+ min at 2 requests\/s/);
    const job = JSON.parse(await readFile(join(dir, 'jobs', 'de-vvs.json'), 'utf8')) as Record<string, unknown>;
    expect(job).toMatchObject({ name: 'de-vvs', deployment: 'de-vvs', source: 'de-vvs', baseUrl: 'https://www3.vvs.de/mngvvs/', dialect: 'rapidjson', timeZone: 'Europe/Berlin', rateLimit: { requestsPerSecond: 2, concurrency: 2 } });
    const [w, s, e, n] = (job['region'] as { bbox: number[] }).bbox;
    // 5 km each way: 10 km is about 0.09° of latitude and 0.137° of longitude at 48.8° N.
    expect((n ?? 0) - (s ?? 0)).toBeCloseTo(0.09, 2);
    expect((e ?? 0) - (w ?? 0)).toBeCloseTo(0.137, 2);

    // What init said is what plan says of the job (the built CLI, nothing sent).
    const plan = await cliIn(dir, ['plan', 'jobs/de-vvs.json', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { coordTiles: unknown[]; budget: { total: number } };
    expect(r.stdout).toContain(`plan: ${planned.coordTiles.length} tile to start, at least ${planned.budget.total} request`);

    const before = await readFile(join(dir, 'jobs', 'de-vvs.json'), 'utf8');
    const again = await cliIn(dir, ['init', 'de-vvs', '--bbox', '9.1,48.7,9.2,48.8']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('init never overwrites a file; give --force');
    expect(await readFile(join(dir, 'jobs', 'de-vvs.json'), 'utf8')).toBe(before);
  });

  it('run jobs/de-vvs.json stores the night under the entry\'s id', async () => {
    const r = await cliIn(dir, ['run', 'jobs/de-vvs.json', '--base-url', sim.url, '--db', `pglite:${join(dir, 'db')}`, '--json']);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(r.stdout) as { source: string; status: string; relations: { pins: { inserted: number } } };
    expect(summary.source).toBe('de-vvs');
    expect(summary.status).toBe('succeeded');
    expect(summary.relations.pins.inserted).toBeGreaterThan(50);
  });

  it('init --force replaces a job; --bbox, --whole and a bad region are read as documented', async () => {
    const forced = await cliIn(dir, ['init', 'de-vvs', '--bbox', '9.1,48.7,9.2,48.8', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'jobs', 'de-vvs.json'), 'utf8'))).toMatchObject({ region: { bbox: [9.1, 48.7, 9.2, 48.8] } });
    const whole = await cliIn(dir, ['init', 'at-linz', '--whole', '--out', 'elsewhere/linz.json', '--json']);
    expect(whole.code, whole.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'elsewhere', 'linz.json'), 'utf8')) as { region: { geojson: { type: string } } };
    expect(written.region.geojson.type).toBe('Polygon');
    expect((JSON.parse(whole.stdout) as { jobs: { id: string; tiles: number }[] }).jobs[0]).toMatchObject({ id: 'at-linz', tiles: 1 });
    const swapped = await cliIn(dir, ['init', 'de-ding', '--bbox', '48.3,9.9,48.5,10.1']);
    expect(swapped.code).toBe(0); // a valid box elsewhere is the user's choice; plan shows it
    const none = await cliIn(dir, ['init', 'de-vms']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--bbox <w,s,e,n>, --around <place> --radius <km>, or --whole');
    expect(existsSync(join(dir, 'jobs', 'de-vms.json'))).toBe(false);
    const unknown = await cliIn(dir, ['init', 'de-nowhere', '--whole']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('de-nowhere\\" is not in the catalogue');
  });

  it('deployments show prints the sources, the bbox and area of the coverage; --json, --country, --search filter', async () => {
    const show = await cliIn(dir, ['deployments', 'show', 'de-vvs']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/coverage {4}bbox \[8\.5917, 48\.3690, 10\.1061, 49\.1895\], [\d,]+ km²/);
    expect(show.stdout).toContain('KDE/kpublictransport@e312d298d18302fa0f1232a6a1591b926685de7f:src/lib/networks/de_bw_vvs.json');
    const all = await cliIn(dir, ['deployments', '--json']);
    const entries = JSON.parse(all.stdout) as { id: string; sources: Record<string, string[]> }[];
    expect(entries.length).toBeGreaterThanOrEqual(30);
    expect(entries.every((e) => Object.keys(e.sources).length >= 8)).toBe(true);
    const at = JSON.parse((await cliIn(dir, ['deployments', '--country', 'AT', '--json'])).stdout) as { id: string }[];
    expect(at.map((e) => e.id)).toEqual(['at-linz', 'at-stmk', 'at-wien']);
    const found = JSON.parse((await cliIn(dir, ['deployments', '--search', 'sydney nsw', '--json'])).stdout) as { id: string }[];
    expect(found.map((e) => e.id)).toEqual([]);
    const nsw = JSON.parse((await cliIn(dir, ['deployments', '--search', 'nsw', '--json'])).stdout) as { id: string }[];
    expect(nsw.map((e) => e.id)).toEqual(['au-nsw']);
    const sea = JSON.parse((await cliIn(dir, ['deployments', '--near', '0,0', '--json'])).stdout) as { id: string; distanceKm: number }[];
    expect(sea).toHaveLength(3);
    expect(sea[0]!.distanceKm).toBeGreaterThan(1000);
    expect(sea[0]!.distanceKm).toBeLessThanOrEqual(sea[1]!.distanceKm);
    const bad = await cliIn(dir, ['deployments', '--near', '48.78']);
    expect(bad.code).toBe(2);
  });
});
