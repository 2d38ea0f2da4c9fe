import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { changeWorld, FaultSpecError, generateWorld, loadWorld, parseFaultSpec } from '../../src/sim/index.js';
import { TODAY, c, withSim } from './helpers.js';

const world = generateWorld({ seed: 1, size: 2000, today: TODAY });
const Q = `coord=${c(9.18, 48.777)}&inclFilter=1&type_0=STOP&radius_0=300`;

describe('fault spec', () => {
  it('parses every key and names the bad part', () => {
    const s = parseFaultSpec('latency=20-80,error5xx=0.1,rate429=20:1,hang=0.01,truncate=0.02,malformed=0.02,html200=0.02,failbox=9.17:48.77,seed=7');
    expect(s).toMatchObject({ latency: { min: 20, max: 80 }, error5xx: 0.1, rate429: { rps: 20, retryAfterS: 1 }, hang: 0.01, failbox: [{ lon: 9.17, lat: 48.77 }], seed: 7 });
    expect(() => parseFaultSpec('latency=20-80,bogus=1')).toThrow(FaultSpecError);
    expect(() => parseFaultSpec('error5xx=2')).toThrow(/error5xx=2/);
    expect(() => parseFaultSpec('rate429=abc')).toThrow(/rate429=abc/);
  });
});

describe('fault injection and request log', () => {
  it('error5xx=1 answers 5xx and logs it', () => withSim({ world, faults: 'error5xx=1' }, async (s, get) => {
    for (let i = 0; i < 5; i++) expect([500, 502, 503]).toContain((await get('XML_COORD_REQUEST', Q)).status);
    expect(s.requestLog).toHaveLength(5);
    expect(s.requestLog.every((e) => e.fault === 'error5xx' && e.path === '/efa/XML_COORD_REQUEST' && e.query.includes('type_0=STOP'))).toBe(true);
  }));

  it('truncate, malformed and html200 answer 200 with unusable bodies', async () => {
    for (const [f, check] of [
      ['truncate', (t: string, ct: string) => { expect(ct).toMatch(/json/); expect(() => JSON.parse(t)).toThrow(); }],
      ['malformed', (t: string, ct: string) => { expect(ct).toMatch(/json/); expect(() => JSON.parse(t)).toThrow(); }],
      ['html200', (t: string, ct: string) => { expect(ct).toMatch(/^text\/html/); expect(t).toMatch(/<html>/); }],
    ] as const) {
      await withSim({ world, faults: `${f}=1` }, async (s, get) => {
        const r = await get('XML_COORD_REQUEST', Q);
        expect(r.status).toBe(200);
        check(r.text, r.headers.get('content-type') ?? '');
        expect(s.requestLog[0]!.fault).toBe(f);
      });
    }
  });

  it('rate429 answers 429 with Retry-After above the rate', () => withSim({ world, faults: 'rate429=3:2' }, async (s, get) => {
    const rs = await Promise.all(Array.from({ length: 6 }, () => get('XML_COORD_REQUEST', Q)));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(3);
    const limited = rs.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    expect(limited[0]!.headers.get('retry-after')).toBe('2');
    expect(s.requestLog.filter((e) => e.fault === 'rate429')).toHaveLength(3);
  }));

  it('failbox fails every area containing the point, forever', () => withSim({ world, faults: 'failbox=9.18:48.777' }, async (s, get) => {
    expect((await get('XML_COORD_REQUEST', Q)).status).toBe(503);
    expect((await get('XML_COORD_REQUEST', Q)).status).toBe(503);
    expect((await get('XML_COORD_REQUEST', `coord=${c(9.1, 48.74)}&inclFilter=1&type_0=STOP&radius_0=300`)).status).toBe(200);
    expect(s.requestLog.map((e) => e.fault)).toEqual(['failbox', 'failbox', undefined]);
  }));

  it('latency delays answers; hang never answers and stop() releases it', async () => {
    await withSim({ world, faults: 'latency=120-150' }, async (s, get) => {
      const t = performance.now();
      expect((await get('XML_COORD_REQUEST', Q)).status).toBe(200);
      expect(performance.now() - t).toBeGreaterThanOrEqual(110);
      expect(s.requestLog[0]!.durationMs).toBeGreaterThanOrEqual(110);
    });
    await withSim({ world, faults: 'hang=1' }, async (s) => {
      const ac = new AbortController();
      const pending = fetch(`${s.url}/XML_COORD_REQUEST?outputFormat=JSON&${Q}`, { signal: ac.signal }).then(() => 'answered', () => 'failed');
      const winner = await Promise.race([pending, new Promise((r) => setTimeout(() => r('hung'), 300))]);
      expect(winner).toBe('hung');
      expect(s.requestLog[0]).toMatchObject({ fault: 'hang', status: 0 });
      await s.stop();
      expect(await pending).toBe('failed');
    });
  });

  it('the dice are deterministic for a seed', async () => {
    const run = (): Promise<number[]> => withSim({ world, faults: 'error5xx=0.5,seed=3' }, async (_s, get) => {
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await get('XML_COORD_REQUEST', Q)).status);
      return out;
    });
    const a = await run();
    expect(a).toEqual(await run());
    expect(new Set(a).size).toBeGreaterThan(1);
  });
});

const DATA = fileURLToPath(new URL('../../../shared/world-data', import.meta.url));

describe('real-data loader', () => {
  it.skipIf(!existsSync(DATA))('loads VVS stops and lines, OSM POIs and parking, GBFS sharing and zones', async () => {
    const w = await loadWorld(DATA, { today: TODAY });
    const herrenberg = w.stop('de:08115:4512')!;
    expect(herrenberg.name).toMatch(/^Herrenb/);
    expect(herrenberg.motTypes).toEqual(expect.arrayContaining([1, 5]));
    expect(w.linesAtStop('de:08115:4512').map((l) => l.name)).toEqual(expect.arrayContaining(['S1', 'Bus 773']));
    expect(w.stops().length).toBeGreaterThan(4000);
    expect([...w.allPins(['POI_POINT'])].length).toBeGreaterThan(2000);
    expect([...w.allPins(['PARKING'])].length).toBeGreaterThan(500);
    expect([...w.allPins(['SHARING'])].length).toBeGreaterThan(1500);
    const tier = w.provider('tier-oslo')!;
    expect(tier.areas.length).toBeGreaterThanOrEqual(2);
    const [lat, lon] = tier.areas[0]!.polygon[0]!;
    expect(lat).toBeGreaterThan(59); expect(lon).toBeLessThan(11);
    expect(w.notice('siri:2024-3443167')).toMatchObject({ validFrom: '2024-10-04', validTo: '2024-11-30' });
    expect(w.currentNotices().length).toBeGreaterThan(0);
  });
});

describe('CoordInfo lies: fullbox, silentcap, empty', () => {
  const box = (w: number, s: number, e: number, n: number, max: number): string =>
    `boundingBox&boundingBoxLU=${c(w, n)}&boundingBoxRL=${c(e, s)}&inclFilter=1&type_0=STOP&type_1=POI_POINT&max=${max}`;

  it('parses them, alone or with a value, and refuses two at once', () => {
    expect(parseFaultSpec('fullbox')).toMatchObject({ fullbox: true });
    expect(parseFaultSpec('silentcap=30,seed=2')).toMatchObject({ silentcap: 30, seed: 2 });
    expect(parseFaultSpec('empty=1')).toMatchObject({ empty: true });
    expect(() => parseFaultSpec('silentcap=0')).toThrow(/silentcap=0/);
    expect(() => parseFaultSpec('fullbox,silentcap=30')).toThrow(/contradict/);
  });

  it('fullbox answers max objects inside even a one-metre box; silentcap cuts every answer at n; empty answers nothing', async () => {
    await withSim({ world, faults: 'fullbox' }, async (_s, get) => {
      const r = await get('XML_COORD_REQUEST', box(9.18, 48.777, 9.18001, 48.77701, 100));
      expect(r.body.pins).toHaveLength(100);
      expect(new Set(r.body.pins.map((p) => p.id)).size).toBe(100);
      for (const p of r.body.pins) {
        expect(p.coord.lon).toBeGreaterThanOrEqual(9.18);
        expect(p.coord.lon).toBeLessThanOrEqual(9.18001);
      }
    });
    await withSim({ world }, async (_s, get) => expect((await get('XML_COORD_REQUEST', box(9.1, 48.72, 9.26, 48.82, 500))).body.pins.length).toBeGreaterThan(30));
    await withSim({ world, faults: 'silentcap=30' }, async (_s, get) => expect((await get('XML_COORD_REQUEST', box(9.1, 48.72, 9.26, 48.82, 500))).body.pins).toHaveLength(30));
    await withSim({ world, faults: 'empty' }, async (_s, get) => expect((await get('XML_COORD_REQUEST', box(9.1, 48.72, 9.26, 48.82, 500))).body.pins).toEqual([]));
  });

  it('changeWorld: the same share of nightly pins removed, moved and added, the same way for the same seed', () => {
    const a = generateWorld({ seed: 1, size: 2000, today: TODAY });
    const b = generateWorld({ seed: 1, size: 2000, today: TODAY });
    const before = new Map([...a.allPins()].map((p) => [p.key, `${p.lon},${p.lat}`]));
    const change = changeWorld(a, 0.03, 5);
    changeWorld(b, 0.03, 5);
    const after = [...a.allPins()];
    expect(after.map((p) => `${p.key}@${p.lon},${p.lat}`)).toEqual([...b.allPins()].map((p) => `${p.key}@${p.lon},${p.lat}`));
    expect(change.removed + change.moved + change.added).toBeGreaterThan(20);
    expect(before.size - change.removed + change.added).toBe(after.length);
    expect(after.filter((p) => before.has(p.key) && before.get(p.key) !== `${p.lon},${p.lat}`)).toHaveLength(change.moved);
  });
});
