import type { BBox } from '../tiling/types.js';
import { readRelationCounts, readRunMeta, type RelationCounts, type RunMeta } from '../db/run-record.js';
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import type { UnitStatus } from '../db/unit-status.js';
import { PARKING } from '../efa/records.js';
import { ConfigError } from '../errors.js';

/** `--run` names no run (or there is none yet): bad usage, exit 2. */
import { loadSnapshotReport, type SnapshotReport } from './snapshots.js';
import { loadWhatChangedForRun } from './history.js';
import type { WhatChanged } from '../history/index.js';

export class RunNotFoundError extends ConfigError {
  override name = 'RunNotFoundError';
}


export interface ReportRun {
  readonly runId: string;
  readonly job: string;
  /** The run's source (efa.runs.source): the map and its layers show this source's rows only. */
  readonly source: string;
  readonly status: string;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly durationS: number | null;
  readonly requests: number;
  /** Rows per relation (efa.runs.stats). */
  readonly stats: RelationCounts;
  /** Run metadata (efa.runs.meta; for runs of 0.1, read from their stats). */
  readonly meta: RunMeta | undefined;
  readonly error: string | null;
  readonly options: Record<string, unknown>;
}

/** One row of efa.run_tiles: a CoordInfo tile or another unit of work (a stop's lines, an OpArea circle). */
export interface ReportUnit {
  readonly operation: string;
  readonly tileId: string;
  readonly status: UnitStatus;
  readonly hits: number;
  readonly attempts: number;
  readonly durationMs: number;
  /** When its record was written, epoch ms: the request ended shortly before. */
  readonly fetchedMs: number;
  readonly bbox: BBox | null;
  readonly error: string | null;
  /**
   * The types a CoordInfo tile's request asked for (efa.run_tiles.types: a stratum of a night by a
   * pilot, sql/018); null = every type of the job, as for every tile of a run without a pilot and every other unit.
   */
  readonly types: readonly string[] | null;
}

export interface ReportArea {
  readonly key: string;
  readonly provider: string;
  readonly name: string | null;
  /** Polygons as rings of [lon, lat], clipped to the map extent and simplified to about a pixel. */
  readonly polygons: readonly (readonly (readonly [number, number])[])[][];
}

/** Stop dots: every stop, or one dot per grid cell (`n` stops) when there are too many to draw. */
export interface ReportStops {
  readonly total: number;
  readonly cellDeg: number | null;
  readonly dots: readonly { readonly lon: number; readonly lat: number; readonly n: number }[];
}

/** Named points of one map layer: every one in the extent up to a cap, [lon, lat, name]. */
export interface ReportPoints {
  readonly total: number;
  readonly shown: readonly (readonly [number, number, string])[];
}

/** The interactive map's point layers: stops, points of interest, parking. */
export interface ReportLayers {
  readonly stops: ReportPoints;
  readonly pois: ReportPoints;
  readonly parking: ReportPoints;
  /** The latest vehicle snapshot's sharing vehicles (efa.vehicle_snapshots), when there is one. */
  readonly vehicles?: ReportPoints;
}

export interface ReportChange {
  readonly relation: string;
  readonly op: string;
  readonly n: number;
}

export interface ReportData {
  readonly run: ReportRun;
  readonly units: readonly ReportUnit[];
  readonly changes: readonly ReportChange[];
  /** lon/lat extent of the map: the run's CoordInfo tiles, else its region, else what there is to draw. */
  readonly extent: BBox | null;
  readonly areas: readonly ReportArea[];
  readonly stops: ReportStops;
  readonly layers: ReportLayers;
  /** Vehicle snapshots: the latest one's vehicles and availability over time. */
  readonly snapshots?: SnapshotReport;
  /**
   * The run took snapshots (a snapshot job): `units` are its snapshot tiles (efa.snapshot_tiles,
   * operation = the snapshot's kind) and the parking layer is its parking snapshot, not efa.pins.
   */
  readonly snapshotRun: boolean;
  /** What changed in the run's source over the last 30 days (sweep runs; sql/014 history). */
  readonly whatChanged?: WhatChanged;
}

/** Points per layer of the interactive map; beyond it the first ones by key are drawn and the caption says so. */
export const maxLayerPoints = 8000;

/** Above this many stops in the extent, dots are aggregated on a grid so the file stays small. */
export const maxStopDots = 4000;
/** Grid cells across the larger side of the extent when aggregating. */
const gridCells = 160;

export async function loadReportData(db: Db, runId: string | undefined, opts: { readonly maxStopDots?: number; readonly maxLayerPoints?: number } = {}): Promise<ReportData> {
  const run = await loadRun(db, runId);
  const snapshotRun = run.meta?.snapshots !== undefined;
  const units = snapshotRun ? await loadSnapshotUnits(db, run.runId) : await loadUnits(db, run.runId);
  const changes = await sql<ReportChange>`
    SELECT relation, op, count(*)::int AS n FROM efa.changes WHERE run_id = ${run.runId}::bigint
    GROUP BY relation, op ORDER BY relation, op`.execute(db.kysely);
  const extent = await mapExtent(db, run, units);
  // A warehouse may hold several sources over the same city: the map is of the run's own (issue 45 point 6).
  const areas = extent ? await loadAreas(db, run.source, extent) : [];
  const stops = extent ? await loadStops(db, run.source, extent, opts.maxStopDots ?? maxStopDots) : { total: 0, cellDeg: null, dots: [] };
  const none: ReportPoints = { total: 0, shown: [] };
  const cap = opts.maxLayerPoints ?? maxLayerPoints;
  const parking = snapshotRun ? await loadParkingSnapshot(db, run.runId, cap) : extent ? await loadPoints(db, run.source, extent, [PARKING], cap) : none;
  const layers: ReportLayers = extent
    ? { stops: await loadPoints(db, run.source, extent, ['STOP'], cap), pois: await loadPoints(db, run.source, extent, ['POI_POINT', 'POI_AREA'], cap), parking }
    : { stops: none, pois: none, parking };
  const snapshots = await loadSnapshotReport(db, run.runId, run.source, cap);
  const withVehicles: ReportLayers = snapshots ? { ...layers, vehicles: { total: snapshots.vehicles.total, shown: snapshots.vehicles.shown } } : layers;
  const whatChanged = snapshotRun ? undefined : await loadWhatChangedForRun(db, run);
  return { run, units, changes: changes.rows, extent, areas, stops, layers: withVehicles, snapshotRun, ...(snapshots ? { snapshots } : {}), ...(whatChanged ? { whatChanged } : {}) };
}

async function loadRun(db: Db, runId: string | undefined): Promise<ReportRun> {
  if (runId !== undefined && !/^\d+$/.test(runId)) throw new RunNotFoundError(`--run: expected a run id (an integer), got "${runId}"`, 'run');
  const r = await sql<{
    run_id: string; job_name: string; source: string; status: string; started_at: Date; finished_at: Date | null;
    duration_s: number | null; requests: number; stats: unknown; meta: unknown; error: string | null; options: Record<string, unknown> | null;
  }>`
    -- ORDER BY names the table's column: a bare run_id would be the text alias, where '9' > '12'.
    SELECT run_id::text AS run_id, job_name, source, status, started_at, finished_at, requests, stats, meta, error, options,
           extract(epoch FROM (finished_at - started_at))::float8 AS duration_s
    FROM efa.runs
    WHERE ${runId ?? null}::bigint IS NULL OR run_id = ${runId ?? null}::bigint
    ORDER BY runs.run_id DESC LIMIT 1`.execute(db.kysely);
  const row = r.rows[0];
  if (!row) throw new RunNotFoundError(runId === undefined ? 'no run recorded yet: run a job first' : `--run: no run ${runId} in efa.runs`, 'run');
  return {
    runId: row.run_id, job: row.job_name, source: row.source, status: row.status, startedAt: new Date(row.started_at), finishedAt: row.finished_at ? new Date(row.finished_at) : null,
    durationS: row.duration_s, requests: row.requests, stats: readRelationCounts(row.stats), meta: readRunMeta(row.meta, row.stats), error: row.error, options: row.options ?? {},
  };
}

async function loadUnits(db: Db, runId: string): Promise<ReportUnit[]> {
  const r = await sql<{
    operation: string; tile_id: string; status: ReportUnit['status']; hits: number; attempts: number; duration_ms: number;
    fetched_ms: number; x0: number | null; y0: number | null; x1: number | null; y1: number | null; error: string | null; types: string[] | null;
  }>`
    SELECT operation, tile_id, status, hits, attempts, duration_ms, error, types,
           (extract(epoch FROM fetched_at) * 1000)::float8 AS fetched_ms,
           ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint ORDER BY fetched_at, run_tile_id`.execute(db.kysely);
  return r.rows.map((u) => ({
    operation: u.operation, tileId: u.tile_id, status: u.status, hits: u.hits, attempts: u.attempts, durationMs: u.duration_ms,
    fetchedMs: u.fetched_ms, error: u.error, types: u.types,
    bbox: u.x0 === null || u.y0 === null || u.x1 === null || u.y1 === null ? null : [u.x0, u.y0, u.x1, u.y1],
  }));
}

/**
 * A snapshot run's tiles as units (the run tiles' words since sql/016): `incomplete` counts with capped (as in
 * efa.snapshots.tiles_capped: objects may be missing there). A snapshot has one moment, so each
 * tile is placed at it with no duration.
 */
async function loadSnapshotUnits(db: Db, runId: string): Promise<ReportUnit[]> {
  const r = await sql<{
    kind: string; tile_id: string; status: string; objects: number; attempts: number; taken_ms: number;
    x0: number; y0: number; x1: number; y1: number; error: string | null;
  }>`
    SELECT kind, tile_id, status, objects, attempts, error, (extract(epoch FROM taken_at) * 1000)::float8 AS taken_ms,
           ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.snapshot_tiles WHERE run_id = ${runId}::bigint ORDER BY kind DESC, depth, tile_id`.execute(db.kysely);
  const statusOf: Readonly<Record<string, ReportUnit['status']>> = { done: 'done', incomplete: 'capped', capped: 'capped', split: 'split', failed: 'failed' };
  return r.rows.map((t) => ({
    // The kinds' tiles are planned apart and may share ids: the kind makes them unique on the map.
    operation: t.kind, tileId: `${t.kind}:${t.tile_id}`, status: statusOf[t.status] ?? 'failed', hits: t.objects, attempts: t.attempts, durationMs: 0,
    fetchedMs: t.taken_ms, error: t.error, bbox: [t.x0, t.y0, t.x1, t.y1], types: null,
  }));
}

/** The parking objects of a run's parking snapshot, labelled with their free places. */
async function loadParkingSnapshot(db: Db, runId: string, cap: number): Promise<ReportPoints> {
  const r = await sql<{ lon: number; lat: number; label: string; total: number }>`
    SELECT round(ST_X(geom)::numeric, 6)::float8 AS lon, round(ST_Y(geom)::numeric, 6)::float8 AS lat,
           concat_ws(' ', coalesce(name, parking_key),
             CASE WHEN free IS NOT NULL THEN concat('(', free, CASE WHEN capacity IS NOT NULL THEN concat(' of ', capacity) END, ' free)') END) AS label,
           count(*) OVER ()::int AS total
    FROM efa.parking_snapshots WHERE run_id = ${runId}::bigint ORDER BY parking_key LIMIT ${cap}`.execute(db.kysely);
  return { total: r.rows[0]?.total ?? 0, shown: r.rows.map((p) => [p.lon, p.lat, p.label] as const) };
}

/** The operations whose tiles the map shades: CoordInfo, or a snapshot's kinds. */
const tileOperations = new Set(['coordInfo', 'vehicles', 'parking']);

/**
 * The leaf tiles (what was stored, or failed): the tiles the map shades. A snapshot run of both
 * kinds covers the region twice: its vehicle tiles are drawn, and of its parking tiles those that
 * failed or were capped (a gap must show).
 */
export function leafTiles(units: readonly ReportUnit[]): (ReportUnit & { bbox: BBox })[] {
  const leaves = units.filter((u): u is ReportUnit & { bbox: BBox } => tileOperations.has(u.operation) && u.status !== 'split' && u.bbox !== null);
  const ops = new Set(leaves.map((u) => u.operation));
  return ops.has('parking') && ops.has('vehicles') ? leaves.filter((u) => u.operation !== 'parking' || u.status === 'failed' || u.status === 'capped') : leaves;
}

/** The leaf tiles of one stratum: those whose requests asked for the same types. */
export interface TileStratum {
  /** The types its tiles asked for, sorted; null = every type of the job (a run without a pilot, a snapshot). */
  readonly types: readonly string[] | null;
  readonly tiles: readonly (ReportUnit & { bbox: BBox })[];
}

/**
 * Leaf tiles (`leafTiles`) by stratum, the one with the most tiles first. A night by a pilot sweeps
 * its region once per stratum, each tile asking for its stratum's types only: tiles of two strata
 * overlap and their hits count different types, so the maps shade one stratum at a time. A run
 * without a pilot has one stratum.
 */
export function tileStrata(leaves: readonly (ReportUnit & { bbox: BBox })[]): TileStratum[] {
  const byTypes = new Map<string, { types: readonly string[] | null; tiles: (ReportUnit & { bbox: BBox })[] }>();
  for (const t of leaves) {
    const types = t.types === null ? null : [...t.types].sort();
    const key = JSON.stringify(types);
    const stratum = byTypes.get(key) ?? { types, tiles: [] };
    stratum.tiles.push(t);
    byTypes.set(key, stratum);
  }
  return [...byTypes.values()].sort((a, b) => b.tiles.length - a.tiles.length);
}

/** How the report names a stratum: its types as a tile id names them (PARKING+STOP). */
export const stratumName = (s: TileStratum): string => (s.types === null ? 'every type' : s.types.join('+'));

function union(boxes: readonly BBox[]): BBox | null {
  if (boxes.length === 0) return null;
  return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
}

function regionBBoxOf(options: Record<string, unknown>): BBox | null {
  const bbox = (options['region'] as { bbox?: unknown } | undefined)?.bbox;
  if (!Array.isArray(bbox)) return null;
  const [x0, y0, x1, y1] = bbox as unknown[];
  return typeof x0 === 'number' && typeof y0 === 'number' && typeof x1 === 'number' && typeof y1 === 'number' ? [x0, y0, x1, y1] : null;
}

async function mapExtent(db: Db, run: ReportRun, units: readonly ReportUnit[]): Promise<BBox | null> {
  const tiles = union(units.filter((u) => tileOperations.has(u.operation) && u.bbox).map((u) => u.bbox as BBox));
  if (tiles) return tiles;
  const region = regionBBoxOf(run.options);
  if (region) return region;
  // A run without CoordInfo (an OpArea-only job): frame what is stored.
  const r = await sql<{ x0: number | null; y0: number | null; x1: number | null; y1: number | null }>`
    WITH e AS (SELECT ST_SetSRID(ST_Extent(g)::geometry, 4326) AS g FROM (
      SELECT geom AS g FROM efa.operating_areas WHERE source = ${run.source} AND deleted_at IS NULL
      UNION ALL SELECT geom FROM efa.stops WHERE source = ${run.source} AND deleted_at IS NULL) s)
    SELECT ST_XMin(g) AS x0, ST_YMin(g) AS y0, ST_XMax(g) AS x1, ST_YMax(g) AS y1 FROM e`.execute(db.kysely);
  const e = r.rows[0];
  return e && e.x0 !== null && e.y0 !== null && e.x1 !== null && e.y1 !== null ? [e.x0, e.y0, e.x1, e.y1] : null;
}

const envelope = (e: BBox) => sql`ST_MakeEnvelope(${e[0]}::float8, ${e[1]}::float8, ${e[2]}::float8, ${e[3]}::float8, 4326)`;

async function loadAreas(db: Db, source: string, e: BBox): Promise<ReportArea[]> {
  // About one pixel of a 900 px map: finer detail only costs bytes.
  const tolerance = Math.max(e[2] - e[0], e[3] - e[1]) / 1200;
  const r = await sql<{ area_key: string; provider_id: string; name: string | null; gj: string | null }>`
    SELECT area_key, provider_id, name,
           ST_AsGeoJSON(ST_CollectionExtract(ST_SimplifyPreserveTopology(ST_Intersection(geom, ${envelope(e)}), ${tolerance}::float8), 3), 6) AS gj
    FROM efa.operating_areas
    WHERE source = ${source} AND deleted_at IS NULL AND geom IS NOT NULL AND ST_Intersects(geom, ${envelope(e)})
    ORDER BY area_key`.execute(db.kysely);
  return r.rows.map((a) => ({ key: a.area_key, provider: a.provider_id, name: a.name, polygons: a.gj ? polygonsOf(JSON.parse(a.gj) as GeoJsonGeometry) : [] }));
}

interface GeoJsonGeometry {
  readonly type: string;
  readonly coordinates?: unknown;
}

function polygonsOf(g: GeoJsonGeometry): [number, number][][][] {
  if (g.type === 'Polygon') return [g.coordinates as [number, number][][]];
  if (g.type === 'MultiPolygon') return g.coordinates as [number, number][][][];
  return [];
}

async function loadStops(db: Db, source: string, e: BBox, maxDots: number): Promise<ReportStops> {
  const count = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.stops WHERE source = ${source} AND deleted_at IS NULL AND ST_Intersects(geom, ${envelope(e)})`.execute(db.kysely);
  const total = count.rows[0]?.n ?? 0;
  if (total <= maxDots) {
    const r = await sql<{ lon: number; lat: number; n: number }>`
      SELECT ST_X(geom) AS lon, ST_Y(geom) AS lat, 1 AS n FROM efa.stops
      WHERE source = ${source} AND deleted_at IS NULL AND ST_Intersects(geom, ${envelope(e)}) ORDER BY pin_key`.execute(db.kysely);
    return { total, cellDeg: null, dots: r.rows };
  }
  const cellDeg = Math.max(e[2] - e[0], e[3] - e[1]) / gridCells;
  const r = await sql<{ lon: number; lat: number; n: number }>`
    SELECT avg(ST_X(geom))::float8 AS lon, avg(ST_Y(geom))::float8 AS lat, count(*)::int AS n FROM efa.stops
    WHERE source = ${source} AND deleted_at IS NULL AND ST_Intersects(geom, ${envelope(e)})
    GROUP BY floor(ST_X(geom) / ${cellDeg}::float8), floor(ST_Y(geom) / ${cellDeg}::float8) ORDER BY 1, 2`.execute(db.kysely);
  return { total, cellDeg, dots: r.rows };
}

/**
 * The current pins of some types in the extent, with their names, for the interactive map. Reads
 * efa.pins by column name only, so columns added to it later do not matter here.
 */
async function loadPoints(db: Db, source: string, e: BBox, types: readonly string[], cap: number): Promise<ReportPoints> {
  const r = await sql<{ lon: number; lat: number; name: string | null; total: number }>`
    SELECT round(ST_X(geom)::numeric, 6)::float8 AS lon, round(ST_Y(geom)::numeric, 6)::float8 AS lat, name,
           count(*) OVER ()::int AS total
    FROM efa.pins
    WHERE source = ${source} AND deleted_at IS NULL AND type = ANY(${types as string[]}::text[]) AND geom IS NOT NULL AND ST_Intersects(geom, ${envelope(e)})
    ORDER BY pin_key LIMIT ${cap}`.execute(db.kysely);
  return { total: r.rows[0]?.total ?? 0, shown: r.rows.map((p) => [p.lon, p.lat, p.name ?? ''] as const) };
}
