import type { BBox } from '../../tiling/types.js';
import { EfaParameterError } from '../errors.js';

export interface LonLat {
  readonly lon: number;
  readonly lat: number;
}

/** The coordinate system EFA requests use here; responses of the json dialect are WGS84 too. */
export const COORD_SYSTEM = 'WGS84[dd.ddddd]';

/** Six decimals are ~0.1 m: finer than any stop position, and stable across runs. */
const DECIMALS = 6;

export function assertLonLat(point: LonLat, parameter: string): void {
  const { lon, lat } = point;
  if (typeof lon !== 'number' || !Number.isFinite(lon) || lon < -180 || lon > 180) {
    throw new EfaParameterError(`${parameter}.lon`, `longitude must be a number in [-180, 180], got ${String(lon)}`);
  }
  if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) {
    throw new EfaParameterError(`${parameter}.lat`, `latitude must be a number in [-90, 90], got ${String(lat)}`);
  }
}

function fixed(value: number): string {
  const text = value.toFixed(DECIMALS);
  // -0.0000001 would print as "-0.000000"; one spelling per position keeps URLs comparable.
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

/** `<lon>:<lat>:WGS84[dd.ddddd]` — x is the longitude, the order EFA expects in requests. */
export function formatCoord(point: LonLat, parameter = 'coord'): string {
  assertLonLat(point, parameter);
  return `${fixed(point.lon)}:${fixed(point.lat)}:${COORD_SYSTEM}`;
}

/** OpArea's `coordRadius`: a coordinate optionally followed by `:<radius in metres>`. */
export function formatCoordRadius(point: LonLat, radiusM?: number, parameter = 'coordRadius'): string {
  const base = formatCoord(point, parameter);
  if (radiusM === undefined) return base;
  if (!Number.isInteger(radiusM) || radiusM <= 0) {
    throw new EfaParameterError(`${parameter}.radiusM`, `radius must be a positive integer of metres, got ${radiusM}`);
  }
  return `${base}:${radiusM}`;
}


/** EFA boxes are given by their upper-left (minLon, maxLat) and lower-right (maxLon, minLat) corners. */
export function boxCorners(bbox: BBox, parameter = 'bbox'): { upperLeft: string; lowerRight: string } {
  const [minLon, minLat, maxLon, maxLat] = bbox;
  if (!(minLon <= maxLon)) throw new EfaParameterError(parameter, `minLon ${minLon} is greater than maxLon ${maxLon}`);
  if (!(minLat <= maxLat)) throw new EfaParameterError(parameter, `minLat ${minLat} is greater than maxLat ${maxLat}`);
  return {
    upperLeft: formatCoord({ lon: minLon, lat: maxLat }, parameter),
    lowerRight: formatCoord({ lon: maxLon, lat: minLat }, parameter),
  };
}
