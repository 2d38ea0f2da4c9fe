import type { Position } from '../records.js';
import { RecordProblemError } from './common.js';

/**
 * The API writes polygon points as [latitude, longitude]: the first element is the LATITUDE.
 * This module is the only place that order is turned into GeoJSON's [lon, lat].
 */
export type LatLonPoint = [lat: number, lon: number];

export function latLonToPosition(point: LatLonPoint): Position {
  const [lat, lon] = point;
  return [lon, lat];
}

export interface ClosedRing {
  readonly ring: Position[];
  /** The input did not end where it began and a closing point was added. */
  readonly closedByParser: boolean;
}

/**
 * Converts one ring and closes it if needed. Fewer than three distinct points cannot enclose an
 * area and no later repair can invent the missing ones, so that is a record problem. Validity
 * (self-intersections, orientation) is repaired in the database, not here.
 */
export function toClosedRing(points: readonly LatLonPoint[], path: readonly PropertyKey[]): ClosedRing {
  const ring = points.map(latLonToPosition);
  const distinct = new Set(ring.map(([lon, lat]) => `${lon},${lat}`));
  if (distinct.size < 3) {
    throw new RecordProblemError(path, `ring has ${distinct.size} distinct point(s), needs at least 3`);
  }
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (first !== undefined && last !== undefined && (first[0] !== last[0] || first[1] !== last[1])) {
    return { ring: [...ring, [first[0], first[1]]], closedByParser: true };
  }
  return { ring, closedByParser: false };
}
