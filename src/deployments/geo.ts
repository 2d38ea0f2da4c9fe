import bbox from '@turf/bbox';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { Deployment } from './schema.js';

/** [lon, lat] */
export type LonLat = readonly [number, number];

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** The coverage's outer ring as [lon, lat] pairs (closed: the last equals the first). */
export function coverageRing(entry: Deployment): LonLat[] {
  return (entry.coverage.coordinates[0] ?? []).map(([lon = 0, lat = 0]) => [lon, lat] as const);
}

export function coverageContains(entry: Deployment, point: LonLat): boolean {
  return booleanPointInPolygon([point[0], point[1]], entry.coverage);
}

export function coverageBBox(entry: Deployment): [number, number, number, number] {
  const [w = 0, s = 0, e = 0, n = 0] = bbox(entry.coverage);
  return [w, s, e, n];
}

/**
 * Area of the coverage in km², on a sphere (the ring projected to the equal-area cylinder; good to a
 * few per cent at these sizes, which is all `deployments show` needs).
 */
export function coverageAreaKm2(entry: Deployment): number {
  const ring = coverageRing(entry);
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i += 1) {
    const [x0, y0] = ring[i] ?? [0, 0];
    const [x1, y1] = ring[i + 1] ?? [0, 0];
    sum += rad(x1 - x0) * (2 + Math.sin(rad(y0)) + Math.sin(rad(y1)));
  }
  return Math.abs((sum * EARTH_RADIUS_KM * EARTH_RADIUS_KM) / 2);
}

/** Kilometres from a point to the coverage: 0 inside, else to the nearest edge (local equirectangular, fine below ~1000 km). */
export function distanceToCoverageKm(entry: Deployment, point: LonLat): number {
  if (coverageContains(entry, point)) return 0;
  const ring = coverageRing(entry);
  const k = Math.cos(rad(point[1]));
  const xy = ([lon, lat]: LonLat): [number, number] => [rad(lon - point[0]) * k * EARTH_RADIUS_KM, rad(lat - point[1]) * EARTH_RADIUS_KM];
  let best = Infinity;
  for (let i = 0; i + 1 < ring.length; i += 1) {
    const [ax, ay] = xy(ring[i] ?? [0, 0]);
    const [bx, by] = xy(ring[i + 1] ?? [0, 0]);
    const dx = bx - ax;
    const dy = by - ay;
    const t = dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)));
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

/** Whether two segments cross (touching at a shared end point of neighbours does not count). */
function segmentsCross(a: LonLat, b: LonLat, c: LonLat, d: LonLat): boolean {
  const orient = (p: LonLat, q: LonLat, r: LonLat): number => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  return orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0;
}

/** Problems of a coverage ring that make it no simple polygon: not closed, no area, edges that cross. */
export function coverageProblems(entry: Deployment): string[] {
  const ring = coverageRing(entry);
  const problems: string[] = [];
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (!first || !last || first[0] !== last[0] || first[1] !== last[1]) problems.push('the ring is not closed');
  if (coverageAreaKm2(entry) <= 0) problems.push('the ring encloses no area');
  for (let i = 0; i + 1 < ring.length; i += 1) {
    for (let j = i + 2; j + 1 < ring.length; j += 1) {
      if (i === 0 && j + 2 === ring.length) continue;
      if (segmentsCross(ring[i]!, ring[i + 1]!, ring[j]!, ring[j + 1]!)) problems.push(`edges ${i} and ${j} cross`);
    }
  }
  return problems;
}
