import { describe, expect, it } from 'vitest';
import { RecordProblemError } from '../../src/efa/parse/common.js';
import { readGeoJsonAreas } from '../../src/efa/parse/geojson.js';
import { MAX_AREA_POINTS } from '../../src/efa/parse/limits.js';
import { parseProviders } from '../../src/efa/parse/providers.js';

/**
 * Issue 29 point 15: a 10^6-point OpArea polygon took 2 GB of memory to read. Beyond
 * MAX_AREA_POINTS an area geometry is a reject with its reason before a point of it is read, its
 * raw record kept cut; the answer's other providers are stored.
 */
const circle = (n: number): number[][] => {
  const ring = Array.from({ length: n }, (_, i) => [48.75 + 0.01 * Math.sin((2 * Math.PI * i) / n), 9.15 + 0.01 * Math.cos((2 * Math.PI * i) / n)]);
  ring.push(ring[0] as number[]);
  return ring;
};

describe('area geometries beyond the point cap', () => {
  it('a million-point OpArea polygon is one reject naming the cap; its raw record is kept cut; the other provider is stored', () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const { records, rejects } = parseProviders({
      providers: [
        { id: 'huge', name: 'Huge', vehicleType: 'BIKE', areas: [{ id: 'a1', polygon: circle(1_000_000) }] },
        { id: 'fine', name: 'Fine', vehicleType: 'BIKE', areas: [{ id: 'a2', polygon: circle(200) }] },
      ],
    });
    expect(records.map((r) => r.id)).toEqual(['fine']);
    expect(rejects).toHaveLength(1);
    expect(rejects[0]?.reason).toMatch(new RegExp(`providers\\[0\\]\\.areas\\[0\\]\\.polygon.*more than ${MAX_AREA_POINTS} points`));
    expect(JSON.stringify(rejects[0]?.raw).length).toBeLessThan(10_000);
    expect(JSON.stringify(rejects[0]?.raw)).toContain('huge');
    // Reading it built nothing per point (the million-point input itself is held by this test).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(400 * 2 ** 20);
  });

  it('a polygon at the cap is read; text rings and rapidJSON GeoJSON count the same way', () => {
    const { records } = parseProviders({ providers: [{ id: 'edge', name: 'Edge', vehicleType: 'BIKE', areas: [{ id: 'a', polygon: circle(MAX_AREA_POINTS - 1) }] }] });
    expect(records).toHaveLength(1);
    const text = circle(MAX_AREA_POINTS + 10).map(([lat, lon]) => `${lat},${lon}`).join(' ');
    const fromText = parseProviders({ providers: [{ id: 't', name: 'T', vehicleType: 'BIKE', areas: [{ id: 'a', polygon: text }] }] });
    expect(fromText.rejects[0]?.reason).toMatch(/more than \d+ points/);
    const lonLat = circle(MAX_AREA_POINTS + 10).map(([lat, lon]) => [lon, lat]);
    expect(() => readGeoJsonAreas({ type: 'Polygon', coordinates: [lonLat] }, ['operatingZone'])).toThrow(RecordProblemError);
  });
});
