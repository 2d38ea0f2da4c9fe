import type { Db } from '../db/connect.js';
import { finishRun, LeaseLostError, stampRunEnd, type OpenedRun } from '../db/ledger.js';
import type { RunMeta, SnapshotMeta, UnitStats } from '../db/run-record.js';
import { dropSnapshotPartitions, ensureSnapshotPartitions, writeParkingSnapshot, writeVehicleSnapshot, type SnapshotRef, type SnapshotTileRow, type SnapshotWrite } from '../db/snapshots.js';
import { errorText, ExitCode, isFatal } from '../errors.js';
import type { Job, LoadedJob } from '../job/index.js';
import type { JobClient } from '../sweep/client.js';
import { dialectInUse } from '../sweep/client.js';
import type { RunSummary } from '../sweep/run.js';
import { regionBBox } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import { redactText } from '../util/redact.js';
import type { SnapshotContext } from './context.js';
import { snapshotParking } from './parking.js';
import { snapshotVehicles } from './vehicles.js';

const dayMs = 86_400_000;

export interface SnapshotRunOptions {
  readonly db: Db;
  readonly log: Logger;
  readonly job: Job;
  readonly loaded: LoadedJob;
  readonly run: OpenedRun;
  readonly secrets: readonly string[];
  readonly jobClient: JobClient;
  /** The snapshot time (default: now); tests set it to place snapshots on given days. */
  readonly takenAt?: Date | undefined;
}

function unitStats(tiles: readonly SnapshotTileRow[]): UnitStats {
  const n = (s: SnapshotTileRow['status']): number => tiles.filter((t) => t.status === s).length;
  return { done: n('ok'), incomplete: n('incomplete'), split: n('split'), capped: n('capped'), failed: n('failed') };
}

type Taken = SnapshotWrite<unknown> & { readonly others: number; readonly maxPerRequest: number };

function metaOf(s: Taken, takenAt: Date): SnapshotMeta {
  return {
    kind: s.record.kind,
    status: s.record.status,
    takenAt: takenAt.toISOString(),
    rows: s.rows.length,
    objects: s.record.objects,
    others: s.others,
    requests: s.record.requests,
    floor: Math.max(1, Math.ceil(s.rows.length / s.maxPerRequest)),
    detailRequests: s.record.detailRequests,
    tilesFailed: s.record.tilesFailed,
    tilesCapped: s.record.tilesCapped,
  };
}

/**
 * One snapshot run: the job's snapshot sweeps at one moment, written at the end in one transaction
 * (each table with one COPY) together with the run's end, so a snapshot is stored whole or not at
 * all. A snapshot whose tiles all failed is stored as `failed` with its tiles (the gap is on record);
 * the run is succeeded (0) when every snapshot is complete, failed (1) when none is usable, partial
 * (3) otherwise. Afterwards the partitions past the retention are dropped whole.
 */
export async function runSnapshot(o: SnapshotRunOptions): Promise<RunSummary> {
  const { db, log, job, run } = o;
  const takenAt = o.takenAt ?? new Date();
  const ctx: SnapshotContext = {
    db, job, log, region: o.loaded.region, regionBBox: regionBBox(o.loaded.region), client: o.jobClient.client, secrets: o.secrets, takenAt,
  };
  const vehiclesCfg = job.sweeps.vehicles;
  const parkingCfg = job.sweeps.parking;
  let vehicles: (Awaited<ReturnType<typeof snapshotVehicles>> & { maxPerRequest: number }) | undefined;
  let parking: (Awaited<ReturnType<typeof snapshotParking>> & { maxPerRequest: number }) | undefined;
  let failure: unknown;
  try {
    if (vehiclesCfg) vehicles = { ...(await snapshotVehicles(ctx, vehiclesCfg)), maxPerRequest: vehiclesCfg.maxPerRequest };
    if (parkingCfg) parking = { ...(await snapshotParking(ctx, parkingCfg)), maxPerRequest: parkingCfg.maxPerRequest };
    await ensureSnapshotPartitions(db, takenAt);
  } catch (error) {
    failure = error;
  }
  if (failure instanceof LeaseLostError) throw failure;
  const taken: Taken[] = failure === undefined ? [vehicles, parking].filter((s): s is NonNullable<typeof s> => s !== undefined) : [];
  const statuses = taken.map((s) => s.record.status);
  const status: RunSummary['status'] =
    failure !== undefined || statuses.every((s) => s === 'failed') ? 'failed' : statuses.every((s) => s === 'complete') ? 'succeeded' : 'partial';
  const error =
    failure !== undefined
      ? redactText(errorText(failure), o.secrets)
      : status === 'succeeded'
        ? undefined
        : taken
            .filter((s) => s.record.status !== 'complete')
            .map((s) => `${s.record.kind} snapshot ${s.record.status}: ${s.record.tilesFailed} tile(s) failed, ${s.record.tilesCapped} capped or incomplete (gaps in efa.snapshot_tiles)`)
            .join('; ');
  const scheduler = o.jobClient.scheduler.stats();
  const finishedAt = new Date();
  let durationS = Math.round((finishedAt.getTime() - run.startedAt.getTime()) / 100) / 10;
  const snapshots = taken.map((s) => metaOf(s, takenAt));
  const units: RunMeta['units'] = Object.fromEntries(taken.map((s) => [s.record.kind, unitStats(s.tiles)]));
  const failures = taken.flatMap((s) => s.tiles.filter((t) => t.status === 'failed').map((t) => ({ operation: s.record.kind, unit: t.tileId, error: t.error ?? '' })));
  const capped = taken.flatMap((s) => s.tiles.filter((t) => t.status === 'capped').map((t) => ({ operation: s.record.kind, unit: t.tileId, hits: t.objects })));
  const meta: RunMeta = {
    source: run.source,
    dialect: dialectInUse(o.jobClient.dialect),
    requestsByOperation: scheduler.requestsByOperation,
    retries: scheduler.retries,
    units,
    rejects: 0,
    failures: failures.slice(0, 50),
    capped: capped.slice(0, 50),
    incomplete: [],
    heldDeletions: [],
    durationS,
    snapshots,
  };
  const ref: SnapshotRef = { runId: run.runId, source: run.source, jobName: job.name, takenAt };
  await db.transaction(async (tx) => {
    if (vehicles && failure === undefined) await writeVehicleSnapshot(tx, ref, vehicles);
    if (parking && failure === undefined) await writeParkingSnapshot(tx, ref, parking);
    await finishRun(tx, run, { status, finishedAt, requests: scheduler.requestsSent, stats: {}, meta, messages: [], error });
  });
  for (const s of snapshots) {
    log.info(`${s.kind} snapshot ${s.status}: ${s.rows} rows from ${s.requests} requests (floor ${s.floor})${s.detailRequests > 0 ? `, ${s.detailRequests} detail requests` : ''}`);
  }
  const retentionDays = job.snapshots?.retentionDays ?? 90;
  const dropped = await dropSnapshotPartitions(db, new Date(takenAt.getTime() - retentionDays * dayMs));
  if (dropped.length > 0) log.info(`retention (${retentionDays} days): dropped ${dropped.join(', ')}`);
  const stamped = await stampRunEnd(db.kysely, run, finishedAt);
  if (stamped) durationS = stamped.durationS;
  return {
    runId: run.runId,
    job: job.name,
    source: run.source,
    dialect: meta.dialect,
    status,
    exitCode: failure !== undefined && isFatal(failure) ? ExitCode.usage : { succeeded: ExitCode.succeeded, partial: ExitCode.partial, failed: ExitCode.failed }[status],
    resumed: false,
    durationS,
    requests: scheduler.requestsSent,
    requestsByOperation: scheduler.requestsByOperation,
    retries: scheduler.retries,
    relations: {},
    stats: { _units: units, _rejects: 0 },
    units,
    rejects: 0,
    failures,
    capped,
    heldDeletions: [],
    messages: [],
    db: db.displayUrl,
    snapshots,
    ...(error ? { error } : {}),
  };
}
