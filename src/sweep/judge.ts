import type { RejectInput } from '../db/ledger.js';
import { isDuplicateReject, type EfaResult, type Pin } from '../efa/index.js';
import { isSharingVehicle, pinKey } from '../relations/pins.js';
import type { BBox, BoxAnswer } from '../tiling/index.js';

/**
 * The one "all records rejected" rule, for box answers and every other unit alike: an answer that
 * held records and could read none of them (dropped duplicate copies aside) says nothing about its
 * box or its subject but that the job reads the server wrongly. The text to report, or undefined.
 */
export function allRejected(result: Pick<EfaResult<unknown>, 'records' | 'rejects'>): string | undefined {
  if (result.records.length > 0 || result.rejects.every(isDuplicateReject)) return undefined;
  return `all ${result.records.length + result.rejects.length} records were rejected (see efa.rejects): is the job's dialect right?`;
}

/**
 * What a CoordInfo box answer may be trusted with. A tile deletes only when its answer is
 * complete: fewer records received (parsed and rejected alike) than `max`, none rejected (but for
 * dropped duplicate copies), all inside the requested box (a few metres of tolerance: servers
 * round coordinates).
 */
export type BoxVerdict =
  | { readonly kind: 'done'; readonly received: number; readonly inside: readonly Pin[]; readonly outside: readonly RejectInput[] }
  | { readonly kind: 'capped'; readonly received: number; readonly inside: readonly Pin[]; readonly outside: readonly RejectInput[] }
  | { readonly kind: 'incomplete'; readonly received: number; readonly inside: readonly Pin[]; readonly outside: readonly RejectInput[]; readonly reason: string }
  | { readonly kind: 'untrusted'; readonly received: number; readonly outside: readonly RejectInput[]; readonly reason: string };

/** About 10 m in latitude. */
const toleranceDeg = 0.0001;

const inBox = (b: BBox, lon: number, lat: number): boolean =>
  lon >= b[0] - toleranceDeg && lon <= b[2] + toleranceDeg && lat >= b[1] - toleranceDeg && lat <= b[3] + toleranceDeg;

export function judgeBoxAnswer(bbox: BBox, result: EfaResult<Pin>, max: number, label: string): BoxVerdict {
  const received = result.records.length + result.rejects.length;
  // A dropped duplicate copy is an object that was received: no sign of anything missing.
  const lost = result.rejects.filter((r) => !isDuplicateReject(r)).length;
  const inside: Pin[] = [];
  const outsidePins: Pin[] = [];
  for (const pin of result.records) (inBox(bbox, pin.coord.lon, pin.coord.lat) ? inside : outsidePins).push(pin);
  const outside = outsidePins.map((pin): RejectInput => ({
    operation: 'coordInfo',
    reason: `coordinate ${pin.coord.lon},${pin.coord.lat} (lon,lat) lies outside the requested box ${bbox.join(',')}`,
    raw: pin,
  }));
  const rejected = allRejected(result);
  if (rejected !== undefined) return { kind: 'untrusted', received, outside, reason: `${label}: ${rejected}` };
  if (outsidePins.length * 2 > result.records.length) {
    const swappedInside = outsidePins.filter((p) => inBox(bbox, p.coord.lat, p.coord.lon)).length;
    const cause =
      swappedInside * 2 > outsidePins.length
        ? 'latitude and longitude look swapped in the answer'
        : 'the server answered for another place (a projected grid, another region, or a box it ignored)';
    return {
      kind: 'untrusted',
      received,
      outside,
      reason: `${label}: ${outsidePins.length} of ${result.records.length} records lie outside the requested box: ${cause}`,
    };
  }
  if (received >= max) return { kind: 'capped', received, inside, outside };
  if (outsidePins.length > 0 || lost > 0) {
    const parts = [
      ...(lost > 0 ? [`${lost} record(s) rejected`] : []),
      ...(outsidePins.length > 0 ? [`${outsidePins.length} record(s) outside the box`] : []),
    ];
    return { kind: 'incomplete', received, inside, outside, reason: parts.join(', ') };
  }
  return { kind: 'done', received, inside, outside };
}

/** What the trust checks read of an answer; sharing vehicles move between two requests and are no identity to compare. */
export function boxAnswer(result: EfaResult<Pin>): BoxAnswer {
  return {
    received: result.records.length + result.rejects.length,
    keys: result.records.filter((p) => !isSharingVehicle(p)).map(pinKey),
    points: result.records.map((p) => p.coord),
  };
}
