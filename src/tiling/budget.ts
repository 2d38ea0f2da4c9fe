import { checkPositive, checkPositiveInt } from './options.js';
import type { Tile } from './types.js';

export interface BudgetSweeps {
  readonly coord?: boolean;
  /** RADIAL mode: one request per tile, a circle around the tile. */
  readonly opAreaRadial?: boolean;
  /** ALL mode: one request for every provider. */
  readonly opAreaAll?: boolean;
  /** Number of stops whose serving lines are queried (known from the last run; 0 on a first run). */
  readonly servingLinesStops?: number;
  /** Number of line names queried by name. */
  readonly lineNames?: number;
  readonly addInfo?: boolean;
}

export interface Budget {
  readonly requests: {
    readonly coord: number;
    readonly opArea: number;
    readonly servingLines: number;
    readonly addInfo: number;
  };
  readonly total: number;
  /** At the rate ceiling, without retries; the floor of the run's duration. */
  readonly minDurationSeconds: number;
  /**
   * CoordInfo counts one request per planned tile; tiles found capped add their split children on
   * top, so the real figure is this or more.
   */
  readonly coordIsLowerBound: boolean;
}

function count(name: string, v: number | undefined): number {
  return v === undefined || v === 0 ? 0 : checkPositiveInt(name, v);
}

/** Requests per operation and the shortest possible run at `requestsPerSecond`, for `efa-sync plan`. */
export function planBudget(tiles: readonly Tile[], sweeps: BudgetSweeps, requestsPerSecond: number): Budget {
  const rps = checkPositive('requestsPerSecond', requestsPerSecond);
  const coord = sweeps.coord === true ? tiles.length : 0;
  const opArea = (sweeps.opAreaRadial === true ? tiles.length : 0) + (sweeps.opAreaAll === true ? 1 : 0);
  const servingLines = count('servingLinesStops', sweeps.servingLinesStops) + count('lineNames', sweeps.lineNames);
  const addInfo = sweeps.addInfo === true ? 1 : 0;
  const total = coord + opArea + servingLines + addInfo;
  return {
    requests: { coord, opArea, servingLines, addInfo },
    total,
    minDurationSeconds: total / rps,
    coordIsLowerBound: coord > 0,
  };
}
