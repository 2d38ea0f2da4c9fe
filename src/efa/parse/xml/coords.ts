import { ImplausibleCoordinatesError, plausibleLonLat, RecordProblemError } from '../common.js';
import { element, list, textOf } from './values.js';

/**
 * Coordinates as an EFA XML answer writes them. A position with a `mapName` says its own reference:
 * `WGS84[DD.ddddd]` (any precision in brackets) is decimal degrees, plain `WGS84` is micro-degrees
 * (integers, 7013111 for 7.013111: the VRR answers of 2016), anything else (NAV3, MRCV, NBWT, ...) is
 * the server's grid and stops the run, naming coordOutputFormat, as in the JSON dialects.
 * `itdPathCoordinates` names only its ellipsoid; its scale is what the answer's own echo of the
 * request says (CoordInfo's `coordInfoRequest/itdCoord@mapName`), decimal degrees when it says none
 * (what efa-sync asks for). Whatever the reading, a position outside lon/lat bounds is never stored.
 */
export type Scale = 'degrees' | 'microDegrees';

/** The scale a `mapName` names, or undefined for a grid. */
export function scaleOfMapName(mapName: string): Scale | undefined {
  const name = mapName.trim().toUpperCase();
  if (name === 'WGS84') return 'microDegrees';
  if (/^WGS84\[[^\]]*\]$/.test(name) || name === 'EPSG:4326') return 'degrees';
  return undefined;
}

function lonLat(xText: string | undefined, yText: string | undefined, scale: Scale, path: readonly PropertyKey[]): { lon: number; lat: number } {
  const numeric = (t: string | undefined): number => (t !== undefined && /^\s*-?\d+(\.\d+)?\s*$/.test(t) ? Number(t) : Number.NaN);
  const [x, y] = [numeric(xText), numeric(yText)];
  // Micro-degrees are integers; a decimal point where they are announced is not that format.
  const micro = scale === 'microDegrees' && Number.isInteger(x) && Number.isInteger(y);
  if (scale === 'microDegrees' && !micro) throw new ImplausibleCoordinatesError(path, `${xText ?? ''},${yText ?? ''}`);
  return plausibleLonLat(micro ? x / 1e6 : x, micro ? y / 1e6 : y, path);
}

/** `x`, `y` and `mapName` attributes of one element (odvNameElem, itdOdvAssignedStop, itdCoord). */
export function attributeCoord(record: Record<string, unknown>, path: readonly PropertyKey[]): { lon: number; lat: number } | undefined {
  const [x, y, mapName] = [record['x'], record['y'], record['mapName']];
  if (typeof x !== 'string' || typeof y !== 'string' || x.trim() === '' || y.trim() === '') return undefined;
  const scale = scaleOfMapName(typeof mapName === 'string' ? mapName : '');
  if (scale === undefined) throw new ImplausibleCoordinatesError([...path, 'mapName'], `${x},${y} in ${String(mapName ?? 'no mapName')}`, true);
  return lonLat(x, y, scale, path);
}

/**
 * The first point of an `itdCoordinateString`: its attributes name the separators (`cs` between x
 * and y, `ts` between points, `decimal`; the real answers write `,`, a space as `&#x20;` and `.`, the
 * defaults here) and `format` the order (`x,y`; `y,x` is swapped).
 */
function firstOfCoordinateString(value: unknown): { x: string; y: string } | undefined {
  const text = textOf(value)?.trim();
  if (text === undefined || text === '') return undefined;
  const attrs = element(value);
  const given = (name: string, fallback: string): string => (typeof attrs[name] === 'string' && attrs[name] !== '' ? (attrs[name] as string) : fallback);
  const [cs, ts, decimal] = [given('cs', ','), given('ts', ' '), given('decimal', '.')];
  const point = (ts.trim() === '' ? text.split(/\s+/) : text.split(ts))[0]?.trim() ?? '';
  const [a = '', b = ''] = point.split(cs).map((part) => (decimal === '.' || decimal === cs ? part : part.split(decimal).join('.')));
  return given('format', 'x,y').replace(/\s/g, '').toLowerCase().startsWith('y') ? { x: b, y: a } : { x: a, y: b };
}

/**
 * The first point of an `itdPathCoordinates`: an `itdCoordinateBaseElemList` of x/y elements, or an
 * `itdCoordinateString` ("x,y x,y ...", what coordListOutputFormat=STRING asks for).
 */
export function pathCoord(value: unknown, scale: Scale, path: readonly PropertyKey[]): { lon: number; lat: number } {
  const coords = element(value);
  const ellipsoid = textOf(coords['coordEllipsoid'])?.trim();
  if (ellipsoid !== undefined && ellipsoid !== '' && ellipsoid.toUpperCase() !== 'WGS84') {
    throw new ImplausibleCoordinatesError([...path, 'coordEllipsoid'], `a position in ${ellipsoid}`, true);
  }
  const base = list(element(coords['itdCoordinateBaseElemList'])['itdCoordinateBaseElem'])[0];
  if (base !== undefined) return lonLat(textOf(element(base)['x']), textOf(element(base)['y']), scale, [...path, 'itdCoordinateBaseElemList']);
  const first = firstOfCoordinateString(coords['itdCoordinateString']);
  if (first !== undefined) return lonLat(first.x, first.y, scale, [...path, 'itdCoordinateString']);
  throw new RecordProblemError(['itdPathCoordinates'], 'no position (itdCoordinateBaseElemList or itdCoordinateString)');
}
