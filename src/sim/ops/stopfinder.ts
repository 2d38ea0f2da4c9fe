/** StopFinder (XML_STOPFINDER_REQUEST): id, fuzzy text and coordinate search over stops. */
import { BadParameterError } from '../errors.js';
import { parseCoord, type Params } from '../params.js';
import type { Stop } from '../types.js';
import type { World } from '../world.js';

export interface LocationOut {
  readonly stop: Stop;
  readonly matchQuality: number;
  readonly isBest: boolean;
  readonly distanceM?: number;
}
export interface StopFinderResult { readonly locations: LocationOut[] }

/** Perfect matches score this; matchQuality runs 0..1000 here (prMinQu is compared in per cent). */
export const PERFECT = 1000;
const COORD_SEARCH_RADIUS_M = 1000;

export function fold(s: string): string {
  return s.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ß/g, 'ss').replace(/[^a-z0-9]+/g, ' ').trim();
}

function trigrams(s: string): Set<string> {
  const t = new Set<string>();
  const p = `  ${s} `;
  for (let i = 0; i + 3 <= p.length; i++) t.add(p.slice(i, i + 3));
  return t;
}

/** A simple fuzzy score: exact > prefix > every word a prefix > substring > trigram overlap. */
export function textScore(query: string, name: string): number {
  const q = fold(query), n = fold(name);
  if (!q) return 0;
  if (q === n) return PERFECT;
  if (n.startsWith(q)) return 900 - Math.min(99, n.length - q.length);
  const words = n.split(' ');
  const qWords = q.split(' ');
  if (qWords.every((w) => words.some((x) => x.startsWith(w)))) return 800 - Math.min(99, n.length - q.length);
  if (n.includes(q)) return 700 - Math.min(99, n.length - q.length);
  const a = trigrams(q), b = trigrams(n);
  let common = 0;
  for (const g of a) if (b.has(g)) common++;
  return Math.round((600 * common) / Math.max(a.size, 1));
}

export function runStopFinder(world: World, p: Params): StopFinderResult {
  const input = p.required('name_sf');
  const type = p.oneOf('type_sf', ['any', 'coord'] as const) ?? missing();
  const maxHits = p.int('anyMaxSizeHitList', 1, 100_000);
  const minQuality = p.int('prMinQu', 0, 100) ?? 0;
  p.int('relInf', 0, 100);
  p.oneOf('rMethod', ['DISTANCEFROMCENTER', 'BESTCOVER', 'PREFIXCOUNT', 'PREFIXRATIO'] as const);
  for (const f of ['anySigWhenPerfectNoOtherMatches', 'locationInfoActive', 'useHouseNumberList_sf', 'useLocalityMainStop', 'doNotSearchForStops_sf', 'tryFurtherAnyWithoutLoc']) p.flag(f);
  for (const f of ['anyObjFilter_sf', 'objPrefAl', 'objPrefAm', 'prefStModeAm']) p.int(f, 0, 2 ** 31);
  p.coord('coord');
  let hits: { stop: Stop; q: number; d?: number }[];
  if (type === 'coord') {
    const c = parseCoord('name_sf', input);
    hits = [...world.pinsInCircle(c.lon, c.lat, COORD_SEARCH_RADIUS_M, ['STOP'])].map(({ pin, distanceM }) => ({
      stop: world.stopOf(pin), d: distanceM, q: Math.round(PERFECT * (1 - distanceM / (COORD_SEARCH_RADIUS_M * 1.001))),
    }));
  } else {
    const exact = world.findStop(input);
    if (exact) hits = [{ stop: exact, q: PERFECT }];
    else {
      hits = [];
      for (const pin of world.allPins(['STOP'])) {
        const q = textScore(input, pin.name);
        if (q >= 300) hits.push({ stop: world.stopOf(pin), q });
      }
    }
  }
  hits = hits.filter((h) => h.q >= minQuality * 10);
  hits.sort((a, b) => b.q - a.q || (a.d ?? 0) - (b.d ?? 0) || (a.stop.id < b.stop.id ? -1 : 1));
  if (p.get('anySigWhenPerfectNoOtherMatches') === '1' && hits[0]?.q === PERFECT) hits = hits.slice(0, 1);
  if (maxHits !== undefined) hits = hits.slice(0, maxHits);
  const best = hits[0]?.stop.id;
  // Real servers don't list the best hit first; ordering by id keeps that honest and reproducible.
  const locations = hits
    .map((h) => ({ stop: h.stop, matchQuality: h.q, isBest: h.stop.id === best, ...(h.d !== undefined ? { distanceM: h.d } : {}) }))
    .sort((a, b) => (a.stop.id < b.stop.id ? -1 : a.stop.id > b.stop.id ? 1 : 0));
  return { locations };
}

function missing(): never {
  throw new BadParameterError('type_sf', 'is required (any or coord)');
}
