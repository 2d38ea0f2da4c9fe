import type { BBox, Tile } from './types.js';

/**
 * Spherical metres per degree of latitude. Tiling only compares lengths and areas within one region,
 * so a local equirectangular projection is accurate enough and far cheaper than geodesics.
 */
export const METRES_PER_DEG_LAT = 111_195;

/**
 * Inner tile edges are snapped to 1e-5°, the precision of the `WGS84[dd.ddddd]` coordinates the
 * request carries. An edge the server sees rounded differently from the one we own points by would
 * lose or double the pins in between.
 */
export const EDGE_DECIMALS = 5;
const EDGE_SCALE = 10 ** EDGE_DECIMALS;

export function snapEdge(x: number): number {
  // Dividing an integer by a power of ten yields the double nearest to the decimal the server parses.
  return Math.round(x * EDGE_SCALE) / EDGE_SCALE;
}

export function metresPerDegLon(lat: number): number {
  return METRES_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180);
}

export function bboxCentre(b: BBox): { lon: number; lat: number } {
  return { lon: (b[0] + b[2]) / 2, lat: (b[1] + b[3]) / 2 };
}

export function bboxSizeMetres(b: BBox): { width: number; height: number } {
  const mid = (b[1] + b[3]) / 2;
  return { width: (b[2] - b[0]) * metresPerDegLon(mid), height: (b[3] - b[1]) * METRES_PER_DEG_LAT };
}

export function bboxAreaM2(b: BBox): number {
  const { width, height } = bboxSizeMetres(b);
  return width * height;
}

export function containsClosed(b: BBox, lon: number, lat: number): boolean {
  return lon >= b[0] && lon <= b[2] && lat >= b[1] && lat <= b[3];
}

function formatCoord(x: number): string {
  // Seven decimals (about 1 cm) keep ids short while never merging two distinct snapped edges.
  return Number(x.toFixed(7)).toString();
}

export function tileId(bbox: BBox, depth: number): string {
  return `${depth}/${bbox.map(formatCoord).join(',')}`;
}

export function makeTile(bbox: BBox, depth: number, parentId?: string): Tile {
  const id = tileId(bbox, depth);
  return parentId === undefined ? { id, bbox, depth } : { id, bbox, depth, parentId };
}

/** The id of a stratum's tile: the box's id and its types (sorted), `depth/box:TYPE+TYPE`; the box's id alone without types. */
export function stratumTileId(bbox: BBox, depth: number, types: readonly string[] | undefined): string {
  const id = tileId(bbox, depth);
  return types === undefined ? id : `${id}:${[...types].sort().join('+')}`;
}

/**
 * `tile` as a unit of the stratum of `types` (undefined: of every type, the tile as it is). Its id
 * names the stratum; its parent id is kept (a split child of a stratum's tile already names its parent's).
 */
export function inStratum(tile: Tile, types: readonly string[] | undefined): Tile {
  if (types === undefined) return tile;
  return { ...tile, id: stratumTileId(tile.bbox, tile.depth, types), types: [...types].sort() };
}
