/** Geometry on the sphere, sized for city-scale areas. */
import type { BBox, LatLonRing } from './types.js';

/** Mean earth radius (IUGG); the simulator's great-circle distances use it. */
export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

export function haversineM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A box that surely contains the circle (slightly generous, filtering is exact afterwards). */
export function bboxOfCircle(lon: number, lat: number, radiusM: number): BBox {
  const dLat = (radiusM / EARTH_RADIUS_M) / RAD * 1.001;
  const cos = Math.max(Math.cos(Math.min(89, Math.abs(lat) + dLat) * RAD), 1e-6);
  const dLon = dLat / cos;
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
}

export function inBox(lon: number, lat: number, b: BBox): boolean {
  return lon >= b[0] && lon <= b[2] && lat >= b[1] && lat <= b[3];
}

/** Even-odd test on a [lat, lon] ring. */
export function pointInRing(lon: number, lat: number, ring: LatLonRing): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i];
    const b = ring[j];
    if (!a || !b) continue;
    const [latI, lonI] = a;
    const [latJ, lonJ] = b;
    if (latI > lat !== latJ > lat && lon < ((lonJ - lonI) * (lat - latI)) / (latJ - latI) + lonI) inside = !inside;
  }
  return inside;
}

/** Even-odd test on a [lon, lat] ring (GeoJSON order). */
export function pointInLonLatRing(lon: number, lat: number, ring: readonly (readonly number[])[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const xi = ring[i]?.[0] ?? 0, yi = ring[i]?.[1] ?? 0;
    const xj = ring[j]?.[0] ?? 0, yj = ring[j]?.[1] ?? 0;
    if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * Distance in metres from a point to a ring's boundary, 0 inside. Uses an equirectangular
 * projection at the point, which is exact enough for the radii the API deals in (metres to km).
 */
export function distanceToRingM(lon: number, lat: number, ring: LatLonRing): number {
  if (pointInRing(lon, lat, ring)) return 0;
  const kx = Math.cos(lat * RAD) * RAD * EARTH_RADIUS_M;
  const ky = RAD * EARTH_RADIUS_M;
  let best = Infinity;
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1];
    const b = ring[i];
    if (!a || !b) continue;
    const ax = (a[1] - lon) * kx, ay = (a[0] - lat) * ky;
    const bx = (b[1] - lon) * kx, by = (b[0] - lat) * ky;
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

export function ringBBox(ring: LatLonRing): BBox {
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  for (const [lat, lon] of ring) {
    minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
  }
  return [minLon, minLat, maxLon, maxLat];
}

export function boxesIntersect(a: BBox, b: BBox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** Closes a ring if its last point differs from its first. */
export function closeRing(ring: readonly (readonly [number, number])[]): [number, number][] {
  const out = ring.map(([a, b]) => [a, b] as [number, number]);
  const first = out[0];
  const last = out[out.length - 1];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) out.push([first[0], first[1]]);
  return out;
}
