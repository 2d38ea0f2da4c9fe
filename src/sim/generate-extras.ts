/** Providers with operating areas, lines over chains of nearby stops, and notices for a generated world. */
import { addDays } from './dates.js';
import { GridIndex } from './grid.js';
import { placeName } from './names.js';
import { pick, type Rng } from './rng.js';
import { NOTICE_TYPES, type Line, type LatLonRing, type Notice, type Provider } from './types.js';

/** A closed [lat, lon] ring: a star when `inner` < 1 (concave), else a jittered circle. */
function starRing(rng: Rng, lon: number, lat: number, rKm: number, points: number, inner: number): LatLonRing {
  const ring: [number, number][] = [];
  const kLat = 1 / 111.2, kLon = kLat / Math.cos((lat * Math.PI) / 180);
  for (let k = 0; k < points; k++) {
    const ang = (2 * Math.PI * k) / points;
    const r = rKm * (k % 2 === 1 ? inner : 1) * (0.9 + 0.2 * rng());
    ring.push([+(lat + r * Math.sin(ang) * kLat).toFixed(6), +(lon + r * Math.cos(ang) * kLon).toFixed(6)]);
  }
  const first = ring[0];
  if (first) ring.push([first[0], first[1]]);
  return ring;
}

export function generateProviders(rng: Rng, centres: readonly (readonly [number, number])[]): Provider[] {
  const c = (k: number): readonly [number, number] => centres[k % centres.length] ?? [9.18, 48.777];
  return [
    {
      id: 'simrad', name: 'SimRad Bikesharing', vehicleType: 'BIKE',
      areas: [
        { id: 'simrad-1', name: 'SimRad Innenstadt', polygon: starRing(rng, c(0)[0], c(0)[1], 4.5, 16, 0.55) },
        { id: 'simrad-2', name: 'SimRad Nord', polygon: starRing(rng, c(2)[0], c(2)[1], 2.5, 12, 1) },
      ],
    },
    {
      id: 'simcar', name: 'SimCar Carsharing', vehicleType: 'CAR',
      areas: [{ id: 'simcar-1', name: 'SimCar Stadtgebiet', polygon: starRing(rng, c(0)[0], c(0)[1], 9, 10, 1) }],
    },
    {
      id: 'simscoot', name: 'SimScoot E-Scooter', vehicleType: 'MINIVEHICLE',
      areas: [
        { id: 'simscoot-1', name: 'SimScoot Zentrum', polygon: starRing(rng, c(0)[0], c(0)[1], 3.5, 10, 0.4) },
        { id: 'simscoot-2', name: 'SimScoot West', polygon: starRing(rng, c(1)[0], c(1)[1], 2, 8, 1) },
        { id: 'simscoot-3', name: 'SimScoot Ost', polygon: starRing(rng, c(3)[0], c(3)[1], 2, 8, 0.6) },
      ],
    },
  ];
}

/** MOT ids with a rough share (per cent) and the public-name prefix of their lines. */
const MOTS: readonly [mot: number, share: number, prefix: string, numbered: boolean][] = [
  [5, 50, 'Bus ', false], [6, 15, 'Bus ', false], [4, 10, 'Tram ', false], [3, 8, 'U', true], [1, 6, 'S', true],
  [2, 3, 'M', true], [0, 3, 'RB ', false], [7, 2, 'X', true], [10, 1, 'AST ', false], [8, 1, 'Seilbahn ', false], [9, 1, 'Fähre ', false],
];

export interface StopPoints {
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly lon: Float64Array;
  readonly lat: Float64Array;
}

export function generateLines(rng: Rng, stops: StopPoints): { line: Line; stops: string[] }[] {
  const n = stops.ids.length;
  if (n < 2) return [];
  let b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const x = stops.lon[i] ?? 0, y = stops.lat[i] ?? 0;
    b = [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)];
  }
  const grid = new GridIndex(stops.lon, stops.lat, b, n, 4);
  const counters = new Map<number, number>();
  const out: { line: Line; stops: string[] }[] = [];
  const lineCount = Math.max(3, Math.round(n / 5));
  for (let k = 0; k < lineCount; k++) {
    let r = rng() * 100, mot = 5, prefix = 'Bus ', numbered = false;
    for (const [m, share, p, num] of MOTS) { if (r < share) { mot = m; prefix = p; numbered = num; break; } r -= share; }
    const chain = chainFrom(rng, grid, stops, Math.floor(rng() * n), 4 + Math.floor(rng() * 14));
    if (chain.length < 2) continue;
    const seq = (counters.get(mot) ?? 0) + 1;
    counters.set(mot, seq);
    const number = numbered ? `${prefix}${seq}` : String(mot === 5 || mot === 6 ? 40 + seq : seq);
    const name = numbered ? number : `${prefix}${number}`;
    const diva = String(10001 + k);
    for (const dirCode of ['H', 'R'] as const) {
      const ids = chain.map((i) => stops.ids[i] ?? '');
      if (dirCode === 'R') ids.reverse();
      const last = chain[dirCode === 'H' ? chain.length - 1 : 0] ?? 0;
      out.push({
        line: {
          id: `vvs:${diva}: :${dirCode}:j24`, network: 'vvs', diva, supplement: ' ', dirCode, project: 'j24', name, number, mot,
          direction: stops.names[last] ?? '', operator: mot === 1 || mot === 0 ? 'DB' : 'SSB',
        },
        stops: ids,
      });
    }
  }
  return out;
}

/** Walks from a start stop to the nearest unvisited stop ahead, for `len` stops. */
function chainFrom(rng: Rng, grid: GridIndex, s: StopPoints, start: number, len: number): number[] {
  const chain = [start];
  const seen = new Set(chain);
  let hx = rng() - 0.5, hy = rng() - 0.5;
  while (chain.length < len) {
    const cur = chain[chain.length - 1] ?? start;
    const x = s.lon[cur] ?? 0, y = s.lat[cur] ?? 0;
    let best = -1, bestD = Infinity;
    for (const reach of [0.0003, 0.001, 0.003, 0.01, 0.03]) {
      for (const j of grid.query([x - reach, y - reach, x + reach, y + reach])) {
        if (seen.has(j)) continue;
        const dx = (s.lon[j] ?? 0) - x, dy = (s.lat[j] ?? 0) - y;
        if (dx * hx + dy * hy < 0 && chain.length > 1) continue;
        const d = Math.hypot(dx * 0.66, dy);
        if (d < bestD) { bestD = d; best = j; }
      }
      if (best >= 0) break;
    }
    if (best < 0) break;
    hx = (s.lon[best] ?? 0) - x; hy = (s.lat[best] ?? 0) - y;
    chain.push(best);
    seen.add(best);
  }
  return chain;
}

const SEVERITIES = ['low', 'normal', 'high', 'veryHigh'] as const;
const TITLES: Readonly<Record<string, string>> = {
  stopInfo: 'Hinweis zur Haltestelle', stopBlocking: 'Haltestelle gesperrt', lineInfo: 'Hinweis zur Linie',
  lineBlocking: 'Linie unterbrochen', routeInfo: 'Umleitung', routeBlocking: 'Strecke gesperrt', generalInfo: 'Allgemeine Information',
  bannerInfo: 'Aktuell',
};

export function generateNotices(rng: Rng, lines: readonly { line: Line; stops: readonly string[] }[], today: string): Notice[] {
  const count = Math.min(300, Math.max(12, Math.round(lines.length / 8)));
  const out: Notice[] = [];
  for (let k = 0; k < count; k++) {
    const type = NOTICE_TYPES[k % NOTICE_TYPES.length] ?? 'lineInfo';
    const phase = k % 5;
    const len = Math.floor(rng() * 40);
    let from: string, to: string;
    if (k === 0) { from = addDays(today, -10); to = today; }
    else if (k === 1) { from = today; to = addDays(today, 5); }
    else if (phase === 3) { to = addDays(today, -1 - Math.floor(rng() * 60)); from = addDays(to, -len); }
    else if (phase === 4) { from = addDays(today, 1 + Math.floor(rng() * 30)); to = addDays(from, len); }
    else { from = addDays(today, -Math.floor(rng() * 30)); to = addDays(today, Math.floor(rng() * 60)); }
    const affected = type === 'generalInfo' || type === 'bannerInfo' ? Math.floor(rng() * 2) : 1 + Math.floor(rng() * 4);
    const picked = Array.from({ length: affected }, () => lines[Math.floor(rng() * lines.length)]).filter((l) => l !== undefined);
    const lineIds = [...new Set(picked.map((l) => l.line.id.split(':').slice(0, 4).join(':')))].sort();
    const stopIds = type.startsWith('stop') ? [...new Set(picked.flatMap((l) => l.stops.slice(0, 1)))] : [];
    const names = [...new Set(picked.map((l) => l.line.name))].join(', ');
    out.push({
      id: `sim-${String(k + 1).padStart(4, '0')}`, type, title: `${TITLES[type] ?? type}${names ? `: ${names}` : ''}`,
      text: `Wegen Bauarbeiten am ${placeName(Math.floor(rng() * 1e9))} kommt es ${names ? `auf ${names} ` : ''}zu Einschränkungen.`,
      validFrom: from, validTo: to, lines: lineIds, severity: pick(SEVERITIES, Math.floor(rng() * 4)),
      providerCode: k % 3 === 0 ? 'DB' : 'SSB', sourceSystem: k % 2 === 0 ? 'SIM-ICS' : 'SIM-DIVA', publishedAt: addDays(from, -2), stops: stopIds,
    });
  }
  return out;
}
