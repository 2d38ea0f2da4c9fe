import { describe, expect, it } from 'vitest';
import { generateWorld, haversineM } from '../../src/sim/index.js';
import { TODAY } from './helpers.js';

describe('generated world', () => {
  const w = generateWorld({ seed: 1, size: 5000, today: TODAY });

  it('is deterministic for seed and size, different for another seed', () => {
    const again = generateWorld({ seed: 1, size: 5000, today: TODAY });
    expect(JSON.stringify([...again.allPins()])).toBe(JSON.stringify([...w.allPins()]));
    expect(JSON.stringify(again.lines())).toBe(JSON.stringify(w.lines()));
    expect(JSON.stringify(again.notices())).toBe(JSON.stringify(w.notices()));
    const other = generateWorld({ seed: 2, size: 5000, today: TODAY });
    expect(JSON.stringify([...other.allPins()].slice(0, 50))).not.toBe(JSON.stringify([...w.allPins()].slice(0, 50)));
  });

  it('lies in the Stuttgart region and is clustered: centre far denser than the edges', () => {
    const [minLon, minLat, maxLon, maxLat] = w.bbox;
    expect(minLon).toBeGreaterThanOrEqual(9.05); expect(maxLon).toBeLessThanOrEqual(9.3);
    expect(minLat).toBeGreaterThanOrEqual(48.7); expect(maxLat).toBeLessThanOrEqual(48.85);
    expect(w.pinCount).toBe(5000);
    const centre = [...w.pinsInBox([9.17, 48.77, 9.19, 48.785])].length;
    const edge = [...w.pinsInBox([9.27, 48.70, 9.29, 48.715])].length;
    expect(centre).toBeGreaterThan(edge * 5);
  });

  it('has every kind of object with plausible contents', () => {
    const counts: Record<string, number> = {};
    for (const p of w.allPins()) counts[p.type] = (counts[p.type] ?? 0) + 1;
    for (const t of ['STOP', 'POI_POINT', 'POI_AREA', 'GIS_POINT', 'BUS_POINT', 'PARKING', 'SHARING']) expect(counts[t]).toBeGreaterThan(0);
    const pois = [...w.allPins(['POI_POINT'])];
    expect(pois.some((p) => p.id === undefined)).toBe(true);
    expect(pois.some((p) => p.id !== undefined)).toBe(true);
    expect(w.stops().some((s) => s.motTypes.length > 1)).toBe(true);
    expect(w.stops()[0]?.id).toMatch(/^de:\d{5}:\d+$/);
    expect(w.lines().length).toBeGreaterThan(20);
    expect(w.lines()[0]?.id).toMatch(/^vvs:\d+: :[HR]:j24$/);
    const statuses = new Set(w.notices().map((n) => w.noticeStatus(n)));
    expect([...statuses].sort()).toEqual(['current', 'future', 'history']);
    expect(w.notices().some((n) => n.type === 'bannerInfo')).toBe(true);
    for (const p of w.providers()) for (const a of p.areas) expect(a.polygon[0]).toEqual(a.polygon[a.polygon.length - 1]);
  });

  it('box queries include pins exactly on every edge', () => {
    const p = [...w.allPins(['STOP'])][0]!;
    expect([...w.pinsInBox([p.lon, p.lat, p.lon + 0.01, p.lat + 0.01])].map((x) => x.key)).toContain(p.key);
    expect([...w.pinsInBox([p.lon - 0.01, p.lat - 0.01, p.lon, p.lat])].map((x) => x.key)).toContain(p.key);
    expect([...w.pinsInBox([p.lon + 1e-9, p.lat, p.lon + 0.01, p.lat + 0.01])].map((x) => x.key)).not.toContain(p.key);
  });

  it('circle queries use the great-circle distance', () => {
    const hits = [...w.pinsInCircle(9.18, 48.777, 300)];
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(haversineM(9.18, 48.777, h.pin.lon, h.pin.lat)).toBeLessThanOrEqual(300);
    const all = [...w.pinsInBox([9.17, 48.77, 9.19, 48.785])].filter((p) => haversineM(9.18, 48.777, p.lon, p.lat) <= 300);
    expect(hits.length).toBe(all.length);
  });

  it('mutations show in queries and in the ground truth', () => {
    const m = generateWorld({ seed: 3, size: 2000, today: TODAY });
    const box = [9.0, 48.6, 9.4, 48.9] as const;
    const before = m.truth(box);
    const stop = before.stops[0]!;
    m.renamePin(stop.id, 'Umbenannt');
    m.movePin(stop.id, 9.2, 48.8);
    const added = m.addPin({ type: 'STOP', id: 'de:08111:999999', name: 'Neu', lon: 9.21, lat: 48.79 });
    const gone = before.pins.find((p) => p.type === 'POI_POINT')!;
    m.removePin(gone.key);
    const line = m.lines()[0]!;
    m.addLineAtStop(added.key, line.id);
    const n = m.currentNotices()[0]!;
    m.endNotice(n.id);
    const prov = m.providers()[0]!;
    m.removeArea(prov.id, prov.areas[0]!.id);
    const after = m.truth(box);
    expect(after.pins.length).toBe(before.pins.length);
    expect(after.stops.find((s) => s.id === stop.id)).toMatchObject({ name: 'Umbenannt', lon: 9.2, lat: 48.8 });
    expect(after.pins.some((p) => p.key === gone.key)).toBe(false);
    expect(after.stopLines).toContainEqual({ stopId: added.key, lineId: line.id });
    expect(after.stops.find((s) => s.id === added.key)?.motTypes).toEqual([line.mot]);
    expect(after.notices.some((x) => x.id === n.id)).toBe(false);
    expect(m.notice(n.id)?.validTo).toBe('2026-11-21');
    expect(after.providers.find((p) => p.id === prov.id)?.areas.length).toBe(prov.areas.length - 1);
    expect([...m.pinsInBox([9.2, 48.8, 9.2, 48.8])].map((p) => p.key)).toContain(stop.id);
  });
});
