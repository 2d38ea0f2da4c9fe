import { dropSnapshotPartitions, ensureSnapshotPartitions, pruneSnapshotRollups, storedSnapshotsAt, writeParkingSnapshot, writeVehicleSnapshot, type SnapshotRef, type SnapshotTileRow, type SnapshotWrite } from '../db/snapshots.js';
import type { SnapshotMeta, UnitStats } from '../db/run-record.js';
import { errorText } from '../errors.js';
import type { Ending, Outcome, RunContext, RunKind } from './kind.js';
import type { EndStatus } from './summary.js';
import { regionBBox } from '../tiling/index.js';
import { redactText } from '../util/redact.js';
import type { SnapshotContext } from '../sweep/snapshot/context.js';
import { snapshotParking } from '../sweep/snapshot/parking.js';
import { snapshotVehicles } from '../sweep/snapshot/vehicles.js';
import { alreadyStoredLine, DEFAULT_RETENTION_DAYS } from '../sweep/snapshot/when.js';

const dayMs = 86_400_000;

function unitStats(tiles: readonly SnapshotTileRow[]): UnitStats {
  const n = (s: SnapshotTileRow['status']): number => tiles.filter((t) => t.status === s).length;
  return { done: n('done'), incomplete: n('incomplete'), split: n('split'), capped: n('capped'), failed: n('failed') };
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
 * The snapshot kind of run: the job's snapshot sweeps at one moment, written at the end in the
 * transaction that ends the run (each table with one COPY), so a snapshot is stored whole or not at
 * all. A snapshot whose tiles all failed is stored as `failed` with its tiles (the gap is on record);
 * the run is succeeded (0) when every snapshot is complete, failed (1) when none is usable, partial
 * (3) otherwise. Afterwards the partitions past the retention are dropped whole. A snapshot is a
 * moment: an interrupted one is closed, not continued.
 */
export const snapshotRun: RunKind = {
  resumable: false,
  execute: takeSnapshots,
};

async function takeSnapshots(rc: RunContext): Promise<Outcome> {
  const { db, log, job, run } = rc;
  const takenAt = rc.options.takenAt ?? new Date();
  // Checked before the upstream was asked too (the CLI); again here, under the job's lock, for a
  // run of the same job that stored this instant in between: this one then ends with nothing to do.
  if (rc.options.takenAt !== undefined) {
    const line = alreadyStoredLine(job.name, takenAt, await storedSnapshotsAt(db.kysely, run.source, job.name, takenAt));
    if (line !== undefined) return nothingToDo(rc, line);
  }
  const ctx: SnapshotContext = {
    db, job, log, region: rc.loaded.region, regionBBox: regionBBox(rc.loaded.region), client: rc.jobClient.client, secrets: rc.secrets, takenAt, timeZone: rc.timeZone.zone,
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
  const taken: Taken[] = failure === undefined ? [vehicles, parking].filter((s): s is NonNullable<typeof s> => s !== undefined) : [];
  const snapshots = taken.map((s) => metaOf(s, takenAt));
  return {
    failure,
    async settle(tx) {
      const ref: SnapshotRef = { runId: run.runId, source: run.source, jobName: job.name, takenAt };
      if (vehicles && failure === undefined) await writeVehicleSnapshot(tx, ref, vehicles);
      if (parking && failure === undefined) await writeParkingSnapshot(tx, ref, parking);
      return endingOf(rc, taken, snapshots, failure);
    },
    async tidy() {
      for (const s of snapshots) {
        log.info(`${s.kind} snapshot ${s.status}: ${s.rows} rows from ${s.requests} requests (floor ${s.floor})${s.detailRequests > 0 ? `, ${s.detailRequests} detail requests` : ''}`);
      }
      const retentionDays = job.snapshots?.retentionDays ?? DEFAULT_RETENTION_DAYS;
      // Counted from the wall clock when --now is later: a demo against a simulator's future clock must
      // not drop the days actually collected.
      const now = Math.min(takenAt.getTime(), Date.now());
      const dropped = await dropSnapshotPartitions(db, new Date(now - retentionDays * dayMs));
      if (dropped === undefined) log.warn(`retention (${retentionDays} days): a reader held the snapshot tables for more than a second; the next snapshot drops the old days instead of making every query wait`);
      else if (dropped.length > 0) log.info(`retention (${retentionDays} days): dropped ${dropped.join(', ')}`);
      const rollupDays = job.snapshots?.rollupRetentionDays ?? 730;
      const pruned = await pruneSnapshotRollups(db, run.source, new Date(now - rollupDays * dayMs));
      if (pruned > 0) log.info(`roll-up retention (${rollupDays} days): ${pruned} hourly rows deleted`);
    },
    report: async () => ({ snapshots }),
  };
}

/** A run that found its instant stored meanwhile: it ends succeeded with no snapshot of its own. */
function nothingToDo(rc: RunContext, line: string): Outcome {
  rc.log.info(line);
  return {
    failure: undefined,
    settle: async () => ({ ...endingOf(rc, [], [], undefined), status: 'succeeded', error: undefined }),
    tidy: async () => undefined,
    report: async () => ({ snapshots: [] }),
  };
}

function endingOf(rc: RunContext, taken: readonly Taken[], snapshots: SnapshotMeta[], failure: unknown): Ending {
  const statuses = taken.map((s) => s.record.status);
  const status: EndStatus =
    failure !== undefined || statuses.every((s) => s === 'failed') ? 'failed' : statuses.every((s) => s === 'complete') ? 'succeeded' : 'partial';
  const error =
    failure !== undefined
      ? redactText(errorText(failure), rc.secrets)
      : status === 'succeeded'
        ? undefined
        : taken
            .filter((s) => s.record.status !== 'complete')
            .map((s) => `${s.record.kind} snapshot ${s.record.status}: ${s.record.tilesFailed} tile(s) failed, ${s.record.tilesCapped} capped or incomplete (gaps in efa.snapshot_tiles)`)
            .join('; ');
  return {
    status,
    error,
    relations: {},
    messages: [],
    units: Object.fromEntries(taken.map((s) => [s.record.kind, unitStats(s.tiles)])),
    rejects: taken.reduce((n, s) => n + (s.rejects?.length ?? 0), 0),
    failures: taken.flatMap((s) => s.tiles.filter((t) => t.status === 'failed').map((t) => ({ operation: s.record.kind, unit: t.tileId, error: t.error ?? '' }))),
    capped: taken.flatMap((s) => s.tiles.filter((t) => t.status === 'capped').map((t) => ({ operation: s.record.kind, unit: t.tileId, hits: t.objects }))),
    incomplete: [],
    heldDeletions: [],
    meta: { snapshots },
  };
}
