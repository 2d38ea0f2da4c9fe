import { esc, num, px } from './escape.js';
import type { BBox } from '../tiling/types.js';
import type { ReportArea, ReportStops, TileStratum } from './queries.js';

export interface MapInput {
  readonly extent: BBox;
  /** The leaf tiles by stratum, the largest first (`tileStrata`): the first is shaded, every one's problems are marked. */
  readonly strata: readonly TileStratum[];
  readonly areas: readonly ReportArea[];
  readonly stops: ReportStops;
}

/** Equirectangular, x scaled by cos(mid latitude) so a square km stays square; north up. */
export interface Projection {
  readonly width: number;
  readonly height: number;
  readonly pxPerDegLat: number;
  x(lon: number): number;
  y(lat: number): number;
}

const pad = 12;
const maxSide = 900;

export function projection(e: BBox): Projection {
  const k = Math.cos((((e[1] + e[3]) / 2) * Math.PI) / 180);
  const wDeg = Math.max((e[2] - e[0]) * k, 1e-9);
  const hDeg = Math.max(e[3] - e[1], 1e-9);
  const s = (maxSide - 2 * pad) / Math.max(wDeg, hDeg);
  return {
    width: Math.ceil(wDeg * s + 2 * pad),
    height: Math.ceil(hDeg * s + 2 * pad),
    pxPerDegLat: s,
    x: (lon) => pad + (lon - e[0]) * k * s,
    // SVG y grows downwards: the northern edge is at the top.
    y: (lat) => pad + (e[3] - lat) * s,
  };
}

/** Hits per km² of a tile: density, so a small split tile and a big sparse one compare fairly. */
export function density(t: { bbox: BBox; hits: number }): number {
  const [x0, y0, x1, y1] = t.bbox;
  const km2 = (x1 - x0) * 111.32 * Math.cos((((y0 + y1) / 2) * Math.PI) / 180) * (y1 - y0) * 110.57;
  return km2 > 0 ? t.hits / km2 : 0;
}

/** YlGnBu, light to dark: more hits per km² is darker. */
export const ramp = ['#ffffcc', '#a1dab4', '#41b6c4', '#2c7fb8', '#253494'] as const;
const emptyFill = '#f0f0f0';

function rampColor(t: number): string {
  const f = Math.min(Math.max(t, 0), 1) * (ramp.length - 1);
  const i = Math.min(Math.floor(f), ramp.length - 2);
  const a: string = ramp[i] ?? ramp[0], b: string = ramp[i + 1] ?? ramp[4];
  const mix = (j: number): string => {
    const ca = parseInt(a.slice(j, j + 2), 16), cb = parseInt(b.slice(j, j + 2), 16);
    return Math.round(ca + (cb - ca) * (f - i)).toString(16).padStart(2, '0');
  };
  return `#${mix(1)}${mix(3)}${mix(5)}`;
}

/** Log scale between the sparsest and the densest tile with hits. */
export function densityScale(tiles: readonly { bbox: BBox; hits: number }[]): { min: number; max: number; color(d: number): string } {
  const ds = tiles.map(density).filter((d) => d > 0);
  const min = ds.length ? Math.min(...ds) : 0, max = ds.length ? Math.max(...ds) : 0;
  const span = Math.log(max) - Math.log(min);
  return { min, max, color: (d) => (d <= 0 ? emptyFill : rampColor(span > 0 ? (Math.log(d) - Math.log(min)) / span : 1)) };
}

function rect(p: Projection, b: BBox): string {
  const x = p.x(b[0]), y = p.y(b[3]);
  return `x="${px(x)}" y="${px(y)}" width="${px(p.x(b[2]) - x)}" height="${px(p.y(b[1]) - y)}"`;
}

function areaPath(p: Projection, a: ReportArea): string {
  return a.polygons
    .flatMap((rings) => rings.map((ring) => `M${ring.map(([lon, lat]) => `${px(p.x(lon))} ${px(p.y(lat))}`).join('L')}Z`))
    .join('');
}

/** A round length for the scale bar, about a fifth of the map's width. */
function scaleBar(p: Projection): string {
  const kmPerPx = 110.57 / p.pxPerDegLat;
  const target = (p.width / 5) * kmPerPx;
  const step = [1, 2, 5].map((m) => m * 10 ** Math.floor(Math.log10(target))).filter((v) => v <= target).pop() ?? target;
  const len = step / kmPerPx, x = pad + 4, y = p.height - pad - 4;
  const label = step >= 1 ? `${num(step)} km` : `${num(step * 1000)} m`;
  return `<g class="scale"><path d="M${px(x)} ${px(y - 5)}V${px(y)}H${px(x + len)}V${px(y - 5)}" fill="none" stroke="#222" stroke-width="1.5"/>` +
    `<text x="${px(x + len / 2)}" y="${px(y - 7)}" text-anchor="middle">${esc(label)}</text></g>` +
    `<g class="north"><text x="${px(p.width - pad - 10)}" y="${px(pad + 16)}" text-anchor="middle" font-weight="bold">N</text>` +
    `<path d="M${px(p.width - pad - 10)} ${px(pad + 20)}l-5 12h10z" fill="#222"/></g>`;
}

/**
 * The region map: tiles shaded by hit density, capped and failed tiles marked, areas outlined, stops
 * as dots. Of a night by a pilot only the largest stratum is shaded: the strata overlap and count
 * different types, so shading them all would mix densities of different things.
 */
export function renderMap(m: MapInput): string {
  const p = projection(m.extent);
  const shaded = m.strata[0]?.tiles ?? [];
  const scale = densityScale(shaded.filter((t) => t.status !== 'failed'));
  const tiles = shaded.map((t) => {
    const d = density(t);
    const fill = t.status === 'failed' ? 'url(#hatch-failed)' : scale.color(d);
    const tip = `${t.tileId} (${t.status}): ${t.hits} hits, ${num(d, 1)}/km²${t.error ? ` – ${t.error}` : ''}`;
    return `<rect class="tile tile-${t.status}" data-status="${t.status}" data-tile="${esc(t.tileId)}" data-hits="${t.hits}" ${rect(p, t.bbox)} fill="${fill}"><title>${esc(tip)}</title></rect>`;
  });
  // Drawn again above areas and stops so a failed or capped tile stays visible under everything;
  // those of every stratum, since a gap of any type must show.
  const marks = m.strata
    .flatMap((s) => s.tiles)
    .filter((t) => t.status === 'failed' || t.status === 'capped')
    .map((t) => `<rect class="tile-mark mark-${t.status}" data-tile="${esc(t.tileId)}" ${rect(p, t.bbox)}/>`);
  const areas = m.areas.map(
    (a) => `<path class="area" data-area="${esc(a.key)}" d="${areaPath(p, a)}"><title>${esc(`${a.name ?? a.key} (${a.provider})`)}</title></path>`,
  );
  const aggregated = m.stops.cellDeg !== null;
  const maxN = Math.max(1, ...m.stops.dots.map((d) => d.n));
  const stops = m.stops.dots.map((d) => {
    const r = aggregated ? 1.2 + 3.5 * Math.sqrt(d.n / maxN) : 1.8;
    return `<circle class="stop" data-n="${d.n}" cx="${px(p.x(d.lon))}" cy="${px(p.y(d.lat))}" r="${px(r)}"/>`;
  });
  return [
    `<svg class="map" xmlns="http://www.w3.org/2000/svg" width="${p.width}" height="${p.height}" viewBox="0 0 ${p.width} ${p.height}"`,
    ` data-extent="${m.extent.join(',')}" data-tiles="${shaded.length}" data-areas="${m.areas.length}" data-stops-total="${m.stops.total}"`,
    ` data-stop-dots="${m.stops.dots.length}" data-stops-aggregated="${aggregated}" role="img" aria-label="map of the run's region">`,
    `<defs><pattern id="hatch-failed" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">`,
    `<rect width="8" height="8" fill="#fde0dd"/><line x1="0" y1="0" x2="0" y2="8" stroke="#e31a1c" stroke-width="3"/></pattern>`,
    `<clipPath id="frame"><rect x="0" y="0" width="${p.width}" height="${p.height}"/></clipPath></defs>`,
    `<rect class="frame" width="${p.width}" height="${p.height}" fill="#fff"/>`,
    `<g class="tiles">${tiles.join('')}</g>`,
    `<g class="areas" clip-path="url(#frame)">${areas.join('')}</g>`,
    `<g class="stops">${stops.join('')}</g>`,
    `<g class="marks">${marks.join('')}</g>`,
    scaleBar(p),
    '</svg>',
  ].join('');
}

/** The legend's colour bar, labelled with the density range it spans. */
export function densityLegend(tiles: readonly { bbox: BBox; hits: number; status: string }[]): string {
  const s = densityScale(tiles.filter((t) => t.status !== 'failed'));
  const stops = ramp.map((c, i) => `<stop offset="${(i / (ramp.length - 1)) * 100}%" stop-color="${c}"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="34"><defs><linearGradient id="ramp">${stops}</linearGradient></defs>` +
    `<rect x="0" y="0" width="220" height="14" fill="url(#ramp)" stroke="#999"/>` +
    `<text x="0" y="30">${esc(num(s.min, 1))}</text><text x="220" y="30" text-anchor="end">${esc(num(s.max, 1))} hits/km²</text></svg>`;
}
