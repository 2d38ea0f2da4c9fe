import type { Db } from '../../db/connect.js';
import type { EfaClient } from '../../efa/client.js';
import type { Job, ResolvedRegion } from '../../job/index.js';
import type { BBox, Tile, TileBudget } from '../../tiling/index.js';
import type { Logger } from '../../util/log.js';

/** What a snapshot sweep needs; built once per snapshot run. */
export interface SnapshotContext {
  readonly db: Db;
  readonly job: Job;
  readonly region: ResolvedRegion;
  readonly regionBBox: BBox;
  readonly client: EfaClient;
  readonly log: Logger;
  /** Every credential of the configuration: redacted from whatever the snapshot stores or logs. */
  readonly secrets: readonly string[];
  /** The snapshot time: every row of the snapshot carries it, and it picks the day's partition. */
  readonly takenAt: Date;
  /** The deployment's IANA zone: times its answers write without an offset are read in it. */
  readonly timeZone: string;
}

/** The tile-sweep options every snapshot kind shares: its region, the job's concurrency, the logger. */
export function tileSweepBase(ctx: SnapshotContext, label: string, tiles: readonly Tile[], budget: TileBudget) {
  return {
    label, tiles, region: ctx.region, regionBBox: ctx.regionBBox, budget,
    concurrency: ctx.job.rateLimit.concurrency, log: ctx.log, secrets: ctx.secrets,
  } as const;
}
