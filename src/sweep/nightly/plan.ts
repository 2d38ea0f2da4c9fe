import type { Kysely } from 'kysely';
import { knownPinPoints } from '../../db/known.js';
import type { Database } from '../../db/tables.js';
import { ConfigError } from '../../errors.js';
import type { Job, ResolvedRegion } from '../../job/index.js';
import { bboxSizeMetres, coverRegion, planBudget, planFromKnownPoints, regionBBox, tileBudgetOf, type Budget, type Tile } from '../../tiling/index.js';

/** RADIAL OpArea circles are laid on a grid of about this edge, each circle reaching its cell's corners. */
const radialCellMetres = 5_000;

/**
 * The first CoordInfo tiles of a cold run: the region's envelope as one tile (cut to the region).
 * The first answer shows where the pins are, and splitTile sizes the children from it, which beats
 * guessing a grid before anything is known.
 */
export function initialCoordTiles(region: ResolvedRegion): Tile[] {
  return coverRegion(region, { targetTiles: 1 });
}

export interface RadialCircle {
  readonly tile: Tile;
  readonly centre: { lon: number; lat: number };
  readonly radiusM: number;
}

/**
 * The most circles a RADIAL OpArea sweep plans: 20,000 cells of 5 km cover 500,000 km² (Germany,
 * Spain or California with room). Beyond that the run would be days of requests for something ALL
 * answers in one, and the plan itself (hundreds of thousands of tiles) would not fit in memory.
 */
export const MAX_RADIAL_CIRCLES = 20_000;

/** How many circles RADIAL lays over `region`; a ConfigError (exit 2) above MAX_RADIAL_CIRCLES. */
export function radialCircleCount(region: ResolvedRegion): number {
  const { width, height } = bboxSizeMetres(regionBBox(region));
  const targetTiles = Math.max(1, Math.ceil((width * height) / radialCellMetres ** 2));
  if (targetTiles > MAX_RADIAL_CIRCLES) {
    throw new ConfigError(
      `sweeps.opArea: mode RADIAL over this region needs about ${targetTiles.toLocaleString('en')} circles (one per ${radialCellMetres / 1000} km cell of its ` +
        `${Math.round(width / 1000).toLocaleString('en')} × ${Math.round(height / 1000).toLocaleString('en')} km envelope), more than the limit of ` +
        `${MAX_RADIAL_CIRCLES.toLocaleString('en')}: use mode ALL, or a smaller region`,
      'sweeps.opArea.mode',
    );
  }
  return targetTiles;
}

export function radialCircles(region: ResolvedRegion, radiusM?: number): RadialCircle[] {
  const targetTiles = radialCircleCount(region);
  return coverRegion(region, { targetTiles }).map((tile) => {
    const size = bboxSizeMetres(tile.bbox);
    return {
      tile,
      centre: { lon: (tile.bbox[0] + tile.bbox[2]) / 2, lat: (tile.bbox[1] + tile.bbox[3]) / 2 },
      radiusM: radiusM ?? Math.ceil(Math.hypot(size.width, size.height) / 2),
    };
  });
}

export interface RunPlan {
  readonly coordTiles: Tile[];
  readonly radial: RadialCircle[];
  readonly budget: Budget;
}

/**
 * What a run will request before any answer comes back. `known` comes from the database when there
 * is one: the night's CoordInfo tiles planned from known pins, and the number of known stops.
 */
export function planRun(job: Job, region: ResolvedRegion, known: { coordTiles?: Tile[]; stops?: number } = {}): RunPlan {
  const knownStops = known.stops ?? 0;
  const coordTiles = job.sweeps.coord ? (known.coordTiles ?? initialCoordTiles(region)) : [];
  const radial = job.sweeps.opArea?.mode === 'RADIAL' ? radialCircles(region, job.sweeps.opArea.radiusM) : [];
  const stopFinder = job.sweeps.stopFinder?.names.length ?? 0;
  const base = planBudget(
    coordTiles,
    {
      coord: job.sweeps.coord !== undefined,
      opAreaAll: job.sweeps.opArea?.mode === 'ALL',
      servingLinesStops: job.sweeps.servingLines?.forStops ? knownStops : 0,
      lineNames: (job.sweeps.servingLines?.lineNames.length ?? 0) + stopFinder,
      addInfo: job.sweeps.addInfo !== undefined,
    },
    job.rateLimit.requestsPerSecond,
  );
  const opArea = base.requests.opArea + radial.length;
  const total = base.total + radial.length;
  const budget: Budget = {
    ...base,
    requests: { ...base.requests, opArea },
    total,
    minDurationSeconds: total / job.rateLimit.requestsPerSecond,
  };
  return { coordTiles, radial, budget };
}

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/**
 * The first CoordInfo tiles of a night. With known pins (and not `--full`), a k-d partition at pin
 * medians sized for PLAN_FILL (90 %) of maxPerRequest: close to the floor ceil(pins / max) and headroom for
 * growth. Without, the region as one tile, split from what its answer shows.
 */
export async function planCoordTiles(db: Kysely<Database>, source: string, cfg: CoordSweep, region: ResolvedRegion, full: boolean): Promise<{ tiles: Tile[]; known: number }> {
  if (full) return { tiles: initialCoordTiles(region), known: 0 };
  const points = await knownPinPoints(db, source, cfg, region);
  const known = points.length / 2;
  if (known === 0) return { tiles: initialCoordTiles(region), known };
  return { tiles: planFromKnownPoints(region, points, tileBudgetOf(cfg)), known };
}
