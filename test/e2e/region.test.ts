import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bboxPolygon } from '@turf/bbox-polygon';
import { booleanIntersects } from '@turf/boolean-intersects';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const worldData = fileURLToPath(new URL('../../../shared/world-data', import.meta.url));

/** A concave region with a hole: an L around the centre, cut out in the middle. */
const polygon = {
  type: 'Polygon' as const,
  coordinates: [
    [[9.1, 48.72], [9.26, 48.72], [9.26, 48.76], [9.16, 48.76], [9.16, 48.82], [9.1, 48.82], [9.1, 48.72]],
    [[9.12, 48.73], [9.14, 48.73], [9.14, 48.75], [9.12, 48.75], [9.12, 48.73]],
  ],
};

function boxOf(query: string): [number, number, number, number] | undefined {
  const q = new URLSearchParams(query);
  const lu = q.get('boundingBoxLU')?.split(':').map(Number);
  const rl = q.get('boundingBoxRL')?.split(':').map(Number);
  if (!lu || !rl) return undefined;
  return [lu[0] as number, rl[1] as number, rl[0] as number, lu[1] as number];
}

describe('regions: a polygon with a hole, and the real-data world', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => t?.dispose());

  describe('a GeoJSON polygon region', () => {
    let sim: Simulator;
    let summary: RunSummary;
    beforeAll(async () => {
      sim = await startSimulator({ port: 0, seed: 5, size: 2500, today });
      const loaded = inlineJob({
        name: 'polygon',
        baseUrl: sim.url,
        region: { geojson: polygon },
        rateLimit: { requestsPerSecond: 300, concurrency: 6 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 } },
      });
      summary = await runJob({ loaded, db: t.db, log: silent, today });
    });
    afterAll(async () => sim?.stop());

    it('stores exactly the pins inside the polygon (not in its hole)', async () => {
      expect(summary.status).toBe('succeeded');
      const truth = truthComparable(sim.world.truth(polygon, { types: ['STOP', 'POI_POINT'], date: today }));
      const stored = await dbComparable(t.db);
      expect(truth.pins.length).toBeGreaterThan(200);
      expect(stored.pins).toEqual(truth.pins);
    });

    it('never requests a tile outside the polygon', () => {
      const boxes = sim.requestLog.map((e) => boxOf(e.query)).filter((b) => b !== undefined);
      // Every CoordInfo request the run sent is in the simulator's log, its upstream probe's too
      // (counted as `probe`; this job sweeps CoordInfo only, so each probe request is a box).
      expect(boxes.length).toBe((summary.requestsByOperation['coordInfo'] ?? 0) + (summary.requestsByOperation['probe'] ?? 0));
      const outside = boxes.filter((b) => !booleanIntersects(bboxPolygon(b), polygon));
      expect(outside).toEqual([]);
    });
  });

  describe.skipIf(!existsSync(worldData))('the world loaded from ../shared/world-data (Herrenberg)', () => {
    let sim: Simulator;
    let summary: RunSummary;
    const region = [8.82, 48.57, 8.92, 48.63] as const;
    beforeAll(async () => {
      sim = await startSimulator({ port: 0, worldDir: worldData, today });
      const loaded = inlineJob({
        name: 'herrenberg',
        baseUrl: sim.url,
        region: { bbox: [...region] },
        rateLimit: { requestsPerSecond: 300, concurrency: 6 },
        sweeps: {
          coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 },
          opArea: { mode: 'ALL', geometry: true },
          servingLines: { forStops: true },
        },
      });
      summary = await runJob({ loaded, db: t.db, log: silent, today });
    }, 300_000);
    afterAll(async () => sim?.stop());

    it('stores the real stops with their VVS ids, lines and operating areas', async () => {
      expect(summary.status).toBe('succeeded');
      const truth = truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
      const stored = await dbComparable(t.db);
      const herrenbergStops = stored.stops.filter((s) => s.startsWith('de:08115:'));
      expect(herrenbergStops.length).toBeGreaterThan(20);
      // The polygon run above stored pins too; compare this region's part only.
      const inRegion = (p: string): boolean => {
        // Names may contain '|' (real OSM data does): the coordinate is the last two fields.
        const [lon, lat] = p.split('|').slice(-2).map(Number) as [number, number];
        return lon >= region[0] && lon <= region[2] && lat >= region[1] && lat <= region[3];
      };
      expect(stored.pins.filter(inRegion)).toEqual(truth.pins);
      expect(truth.stopLines.every((p) => stored.stopLines.includes(p))).toBe(true);
      expect(truth.stopLines.length).toBeGreaterThan(10);
      expect(truth.areas.every((a) => stored.areas.includes(a))).toBe(true);
    });
  });
});
