import type { MultiPolygon, Polygon } from 'geojson';

/** `[minLon, minLat, maxLon, maxLat]` in WGS84 degrees, the order GeoJSON and turf use. */
export type BBox = readonly [minLon: number, minLat: number, maxLon: number, maxLat: number];

/** A swept area, already loaded (the job loader resolves file paths before tiling sees it). */
export type Region = { readonly bbox: BBox } | { readonly geojson: Polygon | MultiPolygon };

export interface Tile {
  /** Canonical `depth/minLon,minLat,maxLon,maxLat`: the same box at the same depth always gets the same id. */
  readonly id: string;
  readonly bbox: BBox;
  /** 0 for tiles of a covering or a plan, parent depth + 1 for split children. */
  readonly depth: number;
  readonly parentId?: string;
  /**
   * How many pins the plan knew in this tile (night two's tiles are planned from known pins). An
   * answer of at least that many says nothing suspicious; repeated equal answers below it may be a
   * silent server cap.
   */
  readonly known?: number;
  /**
   * The object types this tile's request asks for, when it is a unit of one stratum of a sweep by a
   * pilot type (src/tiling/pilot.ts); undefined = every type of the sweep. Its id names them, so one
   * box can be a unit of two strata; its children and confirming requests ask for the same types.
   */
  readonly types?: readonly string[];
}

export interface Point {
  readonly lon: number;
  readonly lat: number;
}
