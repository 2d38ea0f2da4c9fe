import { tileBudgetOf } from '../../tiling/index.js';
import type { SnapshotReject, SnapshotTileRow, SnapshotWrite, VehicleRow } from '../../db/snapshots.js';
import type { Pin } from '../../efa/index.js';
import { SHARING_VEHICLE_KINDS } from '../../efa/request/vehicle-detail.js';
import { contentHash } from '../../relations/hash.js';
import { errorText, isFatal } from '../../errors.js';
import type { Job } from '../../job/index.js';
import { drainQueue } from '../nightly/queue.js';
import { redactText } from '../../util/redact.js';
import { planSnapshotTiles, snapshotRecord } from './plan.js';
import { isSharingVehicle, sharingProviderOf, sharingVehicleKey } from '../../efa/sharing.js';
import { isStationOnly, sharingRefOf, toVehicleRow, vehicleDetailsOf, vehiclesOf } from '../../relations/vehicle-snapshots/index.js';
import { tileSweepBase, type SnapshotContext } from './context.js';
import { sweepSnapshotTiles } from './tiles.js';

type VehiclesSweep = NonNullable<Job['sweeps']['vehicles']>;

export interface VehicleSnapshot extends SnapshotWrite<VehicleRow> {
  /** Objects of other kinds the server mixed into its answers (counted towards max, not stored). */
  readonly others: number;
  readonly detailFailures: number;
}

/**
 * One snapshot of the region's sharing vehicles: box searches with the vehicle filters (vehSF is
 * always sent: omitted kinds mean all four of efa-api.md, and by our reading of the undocumented
 * API the kind filter keeps other objects out of the answer; a server that mixes them in anyway has
 * them counted towards `max` and dropped), then the vehicle-detail mode within its budget.
 */
export async function snapshotVehicles(ctx: SnapshotContext, cfg: VehiclesSweep): Promise<VehicleSnapshot> {
  const budget = tileBudgetOf(cfg);
  const { tiles: planned, known } = await planSnapshotTiles(ctx.db.kysely, { jobName: ctx.job.name, kind: 'vehicles', region: ctx.region, budget });
  ctx.log.info(`vehicles: ${planned.length} tile(s) ${known > 0 ? `planned from ${known} vehicles of the previous snapshot` : 'to start from'}`);
  const swept = await sweepSnapshotTiles({
    ...tileSweepBase(ctx, 'vehicles', planned, budget),
    request: (tile) =>
      ctx.client.coordInfoBox({
        bbox: [...tile.bbox],
        filters: [{ type: 'ANY' }],
        max: budget.maxPerRequest,
        vehSF: cfg.kinds ?? [...SHARING_VEHICLE_KINDS],
        ...(cfg.engines ? { vehEngineType: cfg.engines } : {}),
        ...(cfg.locationTypes ? { vehLocType: cfg.locationTypes } : {}),
        vehAtStation: cfg.atStation,
      }),
    // A station alone stands for the vehicles it lists; a station without any is not a vehicle.
    expand: (pin) => (isSharingVehicle(pin) ? vehiclesOf(pin) : [pin]),
    rowOf: (pin) => (isSharingVehicle(pin) && !isStationOnly(pin) ? toVehicleRow(pin, undefined, ctx.takenAt) : undefined),
    // Providers number their vehicles themselves: a vehicle is its provider and its id.
    keyOf: (row) => sharingVehicleKey(row.providerId, row.vehicleKey),
    keyLabel: vehicleLabel,
  });
  if (swept.others > 0) ctx.log.info(`vehicles: the answers held ${swept.others} object(s) of other kinds (counted towards max, not stored)`);
  const tiles = emptyIsAGap(swept.tiles, swept.rows.size, ctx);
  const { details, requests: detailRequests, failures } = await fetchDetails(ctx, cfg, [...swept.rows.values()].map((v) => v.pin));
  const { rows, rejects } = withDetails(swept.rows.values(), details, ctx.takenAt);
  const rejected = swept.rejects.length + rejects.length;
  if (rejected > 0) ctx.log.warn(`vehicles: ${rejected} record(s) not stored as sent (see efa.rejects of this run)`);
  return {
    record: snapshotRecord('vehicles', tiles, swept.requests, detailRequests),
    tiles,
    rows,
    rejects: [...swept.rejects, ...rejects],
    others: swept.others,
    detailFailures: failures,
  };
}

/** A box answer's vehicle, as its detail answer is filed: two providers' vehicle 1 are two. */
const detailKey = (pin: Pin): string => sharingVehicleKey(sharingProviderOf(pin), pin.id ?? '');

const vehicleLabel = (row: VehicleRow): string =>
  `vehicle ${JSON.stringify(row.vehicleKey)} of ${row.providerId === null ? 'no named provider' : `provider ${JSON.stringify(row.providerId)}`}`;

/**
 * The rows as written: each box answer's vehicle with its detail answer. A detail answer may name
 * a provider the box answer did not, which could give two rows one key; the second is then a
 * reject, not a duplicate key that would fail the whole snapshot.
 */
function withDetails(
  swept: Iterable<{ pin: Pin; tileId: string }>,
  details: ReadonlyMap<string, Pin>,
  at: Date,
): { rows: VehicleRow[]; rejects: SnapshotReject[] } {
  const rows = new Map<string, VehicleRow>();
  const rejects: SnapshotReject[] = [];
  for (const { pin, tileId } of swept) {
    const row = toVehicleRow(pin, details.get(detailKey(pin)), at);
    const key = sharingVehicleKey(row.providerId, row.vehicleKey);
    if (!rows.has(key)) rows.set(key, row);
    else rejects.push({ operation: 'coordInfo', unit: tileId, reason: `vehicles snapshot: ${vehicleLabel(row)} twice in one snapshot once its detail answer named the provider: not stored twice`, raw: pin });
  }
  return { rows: [...rows.values()], rejects };
}

/**
 * A snapshot in which every tile that answered held no vehicle at all: a sharing region does not
 * empty out between two snapshots, an upstream whose vehicle feed is down does. Stored as zero
 * vehicles it would be averaged into the hourly views as a trough, so its tiles are recorded as
 * failed, a gap with the reason, the same as tiles that did not answer (the snapshot is failed).
 */
function emptyIsAGap(tiles: SnapshotTileRow[], vehicles: number, ctx: SnapshotContext): SnapshotTileRow[] {
  const answered = tiles.filter((t) => t.status !== 'failed' && t.status !== 'split');
  if (vehicles > 0 || answered.length === 0) return tiles;
  const reason = 'no vehicle in any answer of the region: taken as an upstream without vehicle data, a gap, not as zero vehicles';
  ctx.log.warn(`vehicles: ${reason}`);
  return tiles.map((t) => (t.status === 'failed' || t.status === 'split' ? t : { ...t, status: 'failed', error: reason }));
}

/**
 * The vehicle-detail mode for at most `detail.budget` vehicles: a different sample each snapshot
 * (ordered by a hash of the id and the snapshot time), so over a day every vehicle has its turn.
 * A failed detail request leaves that vehicle's row as the box answer gave it.
 */
async function fetchDetails(
  ctx: SnapshotContext,
  cfg: VehiclesSweep,
  vehicles: readonly Pin[],
): Promise<{ details: Map<string, Pin>; requests: number; failures: number }> {
  const details = new Map<string, Pin>();
  const budget = cfg.detail?.budget ?? 0;
  if (!cfg.detail || budget === 0) return { details, requests: 0, failures: 0 };
  const at = ctx.takenAt.toISOString();
  const chosen = vehicles
    .filter((p) => sharingRefOf(p) !== undefined)
    .map((p) => ({ p, order: contentHash([p.id, at]) }))
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
    .slice(0, budget)
    .map((x) => x.p);
  let failures = 0;
  const { spec, availability } = cfg.detail;
  await drainQueue(chosen, ctx.job.rateLimit.concurrency, async (pin) => {
    const ref = sharingRefOf(pin);
    if (!ref) return [];
    try {
      const result = await ctx.client.vehicleDetail({ sharingRef: ref, vehSpec: spec, vehAvail: availability, vehAtStation: cfg.atStation });
      // The vehicle by its id, or by the schema's vehicle id; a lone answer is taken as it.
      const found =
        result.records.find((r) => r.id === pin.id) ??
        result.records.find((r) => vehicleDetailsOf(r.attrs)['id'] === ref.id) ??
        (result.records.length === 1 ? result.records[0] : undefined);
      if (found) details.set(detailKey(pin), found);
    } catch (error) {
      if (isFatal(error)) throw error;
      failures += 1;
      ctx.log.debug(`vehicle detail of ${pin.id ?? '?'} failed: ${redactText(errorText(error), ctx.secrets)}`);
    }
    return [];
  });
  if (failures > 0) ctx.log.warn(`vehicles: ${failures} of ${chosen.length} vehicle-detail requests failed; those vehicles keep what the box answer said`);
  return { details, requests: chosen.length, failures };
}
