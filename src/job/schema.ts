import { z } from 'zod';
import { LINE_REQ_TYPES, OBJECT_TYPES, PARKING_OBJECT_TYPES, type LineReqType, type ParkingObjectType } from '../efa/index.js';
import { addInfoSchema } from '../efa/request/add-info.js';
import { DIALECT_NAMES } from '../efa/dialects/index.js';
import { OPERATIONS } from '../efa/operations.js';
import { OPAREA_VEHICLE_KINDS } from '../efa/request/op-area.js';
import { ENGINE_TYPES, LOCATION_TYPES, SHARING_VEHICLE_KINDS } from '../efa/request/vehicle-detail.js';
import { isSecretName } from '../util/redact.js';
import { isTimeZone } from '../util/time-zone.js';

/**
 * The job file schema (contract section 3). Every object is strict: an unknown key is an error,
 * because a misspelt option that is silently ignored is worse than a failed start.
 */

// A bbox written [lat, lon, lat, lon] (as many map tools show coordinates) fails here when a
// longitude lands where a latitude must be; the message names the order and the likely fix.
const orderHint = 'a bbox is [minLon, minLat, maxLon, maxLat], longitude first: [lat, lon, …] must be swapped';
const bboxLongitude = z.number().min(-180, `longitude must be >= -180 (${orderHint})`).max(180, `longitude must be <= 180 (${orderHint})`);
const bboxLatitude = z.number().min(-90, `latitude must be >= -90 (${orderHint})`).max(90, `latitude must be <= 90 (${orderHint})`);

export const bboxSchema = z
  .tuple([bboxLongitude, bboxLatitude, bboxLongitude, bboxLatitude])
  .superRefine(([minLon, minLat, maxLon, maxLat], ctx) => {
    if (minLon >= maxLon) ctx.addIssue({ code: 'custom', path: [0], message: `minLon ${minLon} must be < maxLon ${maxLon}` });
    if (minLat >= maxLat) ctx.addIssue({ code: 'custom', path: [1], message: `minLat ${minLat} must be < maxLat ${maxLat}` });
  });

// An array rather than a tuple type, so a TS job file can pass GeoJSON read from anywhere.
const position = z
  .array(z.number())
  .min(2, 'a position is [lon, lat]')
  .superRefine(([lon = 0, lat = 0], ctx) => {
    if (Math.abs(lon) > 180) ctx.addIssue({ code: 'custom', path: [0], message: `longitude ${lon} is outside ±180` });
    if (Math.abs(lat) > 90) ctx.addIssue({ code: 'custom', path: [1], message: `latitude ${lat} is outside ±90 (GeoJSON is [lon, lat])` });
  });
/** Twice the signed area of a ring (shoelace), in square degrees: 0 for a ring whose points lie on a line or on one point. */
function ringArea2(ring: readonly (readonly number[])[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i += 1) {
    const [x0 = 0, y0 = 0] = ring[i] ?? [];
    const [x1 = 0, y1 = 0] = ring[i + 1] ?? [];
    sum += x0 * y1 - x1 * y0;
  }
  return sum;
}
// A ring that encloses no area is refused like a bbox with min = max: a region of zero area has no
// tile to sweep, and its run would end "succeeded" with exit 3 (the region answered nothing).
const linearRing = z
  .array(position)
  .min(4, 'a linear ring needs at least 4 positions')
  .superRefine((ring, ctx) => {
    if (ring.length >= 4 && ringArea2(ring) === 0) ctx.addIssue({ code: 'custom', message: 'the ring encloses no area (its positions lie on one line or one point)' });
  });
export const polygonSchema = z.strictObject({ type: z.literal('Polygon'), coordinates: z.array(linearRing).min(1) });
export const multiPolygonSchema = z.strictObject({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(linearRing).min(1)).min(1),
});
export const regionGeometrySchema = z.discriminatedUnion('type', [polygonSchema, multiPolygonSchema]);

export const regionSchema = z.union([
  z.strictObject({ bbox: bboxSchema }),
  // A string is a path to a GeoJSON file, relative to the job file; loadJob resolves it.
  z.strictObject({ geojson: z.union([regionGeometrySchema, z.string().min(1)]) }),
]);

/**
 * Bounds on what one run may cost: nothing a server sends can take more memory, time or requests
 * than these.
 */
export const limitsSchema = z.strictObject({
  /** Largest reply body accepted, decompressed, in MiB. */
  maxResponseMiB: z.number().positive().max(4096).default(64),
  /** Time for a whole reply, last byte included, in seconds (beside rateLimit.timeoutMs, the per-attempt bound). */
  responseDeadlineS: z.number().positive().max(3600).default(300),
  /** A `Retry-After` longer than this fails the request (with a warning) instead of parking the run, in seconds. */
  maxRetryAfterS: z.number().min(0).max(86_400).default(300),
  /** Requests one run may send at most; default: ten times the plan's estimate, and at least 5,000. */
  requestBudget: z.number().int().positive().optional(),
});

export const rateLimitSchema = z.strictObject({
  requestsPerSecond: z.number().positive('requestsPerSecond must be > 0').max(1000),
  concurrency: z.number().int().positive('concurrency must be >= 1').max(256).default(4),
  retries: z.number().int().min(0).max(20).default(4),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
});

export const objectTypeSchema = z.enum(OBJECT_TYPES);
const parkingObjectTypeNames = Object.keys(PARKING_OBJECT_TYPES) as [ParkingObjectType, ...ParkingObjectType[]];

const motList = z.array(z.number().int().min(0).max(99)).min(1);

/**
 * The one box-sweep shape: what every sweep that tiles the region with box searches (coord, vehicles,
 * parking) is told about its boxes, under the same names in each (`sweeps.coord.maxPerRequest`,
 * `sweeps.vehicles.maxPerRequest`, … as always). The box step (src/harvest) reads only this.
 */
export const boxSweepShape = {
  maxPerRequest: z.number().int().min(2, 'maxPerRequest must be >= 2').max(100_000),
  /**
   * The smallest tile (degrees, both axes). Left out: 0.002° on the server's say-so alone, and a tile
   * that small that is still capped is split as far as its answer's density asks, down to the
   * request's coordinate precision (2e-5°), so a dense world does not end partial. Set: a hard floor
   * (a tile that small and still capped is recorded capped), for a job that wants its tiles bounded.
   */
  minTileSizeDeg: z.number().positive().max(10).optional(),
};

/** The box-sweep part of a coord, vehicles or parking sweep. */
export type BoxSweepConfig = z.output<z.ZodObject<typeof boxSweepShape>>;

export const coordSweepSchema = z.strictObject({
  types: z.array(objectTypeSchema).min(1, 'coord.types needs at least one object type'),
  ...boxSweepShape,
  inclMOT: motList.optional(),
  exclMOT: motList.optional(),
  /** Parking objects (parkingSearchMethod=BB over each tile); omitted means no parking sweep. */
  parking: z
    .strictObject({
      /** 'all' (-1), or kinds: multiStorey, carPark, singleSpace, zone, chargingPoint. */
      objectTypes: z.union([z.literal('all'), z.array(z.enum(parkingObjectTypeNames)).min(1)]).default('all'),
      info: z.boolean().default(true),
      realtime: z.boolean().default(false),
    })
    .refine((p) => !p.realtime || p.info, { message: 'parking.realtime requires parking.info (parkObjInfoRealtime needs parkObjInfo)', path: ['realtime'] })
    .optional(),
  /**
   * Night one by a pilot type (src/sweep/pilot.ts): `auto` reads the first answer of a night planned
   * without known pins (a first night, --full) and, where some types lie where a sparse type lies,
   * sweeps that type first and plans the others' tiles from its pins (left out: `auto`); `off` sweeps
   * every type together, with today's splitter alone. Never with type ANY. Nights planned from known
   * pins are the same either way. Left out rather than defaulted, so the job's hash (resume) stays.
   */
  pilot: z.enum(['auto', 'off']).optional(),
});

export const opAreaSweepSchema = z.strictObject({
  mode: z.enum(['ALL', 'RADIAL']),
  geometry: z.boolean().default(true),
  /** RADIAL only: the search radius around each tile centre; default: the tile's half diagonal. */
  radiusM: z.number().int().positive().optional(),
  vehicleKinds: z.array(z.enum(OPAREA_VEHICLE_KINDS)).min(1).optional(),
  /** Keep only operating areas that intersect the job's region (some deployments answer nationwide). */
  clipToRegion: z.boolean().default(false),
});

export const servingLinesSweepSchema = z.strictObject({
  forStops: z.boolean().default(false),
  lineNames: z.array(z.string().min(1)).default([]),
  /** Unchanged stops have their lines refetched in a rolling share, every stop at least every N nights. */
  refreshEveryNights: z.number().int().min(1).max(365).default(7),
  /** Line types (STT, TTB, ROB, StationTT); empty means all (lineReqType=0). */
  lineReqType: z.array(z.enum(Object.keys(LINE_REQ_TYPES) as [LineReqType, ...LineReqType[]])).default([]),
});

const { filterPublicationStatus: _status, ...addInfoFilters } = addInfoSchema.shape;
/**
 * AddInfo takes the filters of efa-api.md under their own names (filterInfoType, filterMOTType, …;
 * dates as YYYY-MM-DD, sent as DD-MM-YYYY), plus `publicationStatus` for filterPublicationStatus.
 */
export const addInfoSweepSchema = z.strictObject({
  publicationStatus: z.enum(['current', 'history']).default('current'),
  ...addInfoFilters,
});

/**
 * The snapshot sweep of sharing vehicles: a box search of the region carrying the vehicle filters
 * (vehSF, vehEngineType, vehLocType<i>, vehAtStation), split on the cap like CoordInfo; then, within
 * `detail.budget` requests, the vehicle-detail mode (vehSpec, vehAvail) for the vehicles seen.
 */
export const vehiclesSweepSchema = z.strictObject({
  ...boxSweepShape,
  /** vehSF: the vehicle kinds asked for; omitted means all. */
  kinds: z.array(z.enum(SHARING_VEHICLE_KINDS)).min(1, 'vehicles.kinds: at least one kind, or leave it out for all').optional(),
  /** vehEngineType: omitted means all. */
  engines: z.array(z.enum(ENGINE_TYPES)).min(1, 'vehicles.engines: at least one engine type, or leave it out for all').optional(),
  /** vehLocType<i>: omitted means all. */
  locationTypes: z.array(z.enum(LOCATION_TYPES)).min(1, 'vehicles.locationTypes: at least one location type, or leave it out for all').optional(),
  /** vehAtStation=1: also vehicles standing at stations. */
  atStation: z.boolean().default(true),
  /** The vehicle-detail mode, one request per vehicle, at most `budget` requests per snapshot. */
  detail: z
    .strictObject({
      budget: z.number().int().min(0).max(100_000),
      spec: z.boolean().default(true),
      availability: z.boolean().default(true),
    })
    .refine((d) => d.spec || d.availability, { message: 'vehicles.detail: ask for spec, availability or both', path: ['spec'] })
    .optional(),
});

/** The snapshot sweep of parking objects with their real-time occupancy (parkObjInfo=1&parkObjInfoRealtime=1). */
export const parkingSnapshotSweepSchema = z.strictObject({
  /** 'all' (-1), or kinds: multiStorey, carPark, singleSpace, zone, chargingPoint. */
  objectTypes: z.union([z.literal('all'), z.array(z.enum(parkingObjectTypeNames)).min(1)]).default('all'),
  realtime: z.literal(true, 'parking.realtime must be true: a parking snapshot is its real-time occupancy'),
  ...boxSweepShape,
});

/** Snapshot retention: partitions (one per UTC day) older than this are dropped whole. */
export const snapshotsSchema = z.strictObject({
  retentionDays: z.number().int().min(1, 'snapshots.retentionDays must be >= 1').max(36_500).default(90),
  /** The hourly roll-ups the dashboard views read (sql/028): small, so kept longer than the raw series. */
  rollupRetentionDays: z.number().int().min(1, 'snapshots.rollupRetentionDays must be >= 1').max(36_500).default(730),
});

const SNAPSHOT_SWEEPS = ['vehicles', 'parking'] as const;
const NIGHTLY_SWEEPS = ['coord', 'opArea', 'servingLines', 'addInfo', 'stopFinder'] as const;

export const sweepsSchema = z
  .strictObject({
  coord: coordSweepSchema.optional(),
  opArea: opAreaSweepSchema.optional(),
  servingLines: servingLinesSweepSchema.optional(),
  addInfo: addInfoSweepSchema.optional(),
  /** Stop names to resolve with StopFinder; the best match of each is stored as a pin. */
  stopFinder: z.strictObject({ names: z.array(z.string().min(1)).min(1) }).optional(),
  /** Sharing vehicles as a time series (efa.vehicle_snapshots), meant to run every 5–15 minutes. */
  vehicles: vehiclesSweepSchema.optional(),
  /** Parking occupancy as a time series (efa.parking_snapshots); `coord.parking` stays the nightly pins. */
  parking: parkingSnapshotSweepSchema.optional(),
})
  // A snapshot is a moment and runs every few minutes; a nightly sweep takes its time and resumes.
  // One job is one cadence: mixing them would make the nightly sweep run every five minutes.
  .superRefine((sweeps, ctx) => {
    const snapshot = SNAPSHOT_SWEEPS.filter((k) => sweeps[k] !== undefined);
    const nightly = NIGHTLY_SWEEPS.filter((k) => sweeps[k] !== undefined);
    if (snapshot.length > 0 && nightly.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [snapshot[0] ?? 'vehicles'],
        message: `snapshot sweeps (${snapshot.join(', ')}) run every few minutes and cannot share a job with nightly sweeps (${nightly.join(', ')}): put them in a job of their own`,
      });
    }
  });

/** Whether a job takes snapshots (vehicles, parking occupancy) rather than sweeping the nightly world. */
export function isSnapshotJob(job: { sweeps: z.output<typeof sweepsSchema> }): boolean {
  return job.sweeps.vehicles !== undefined || job.sweeps.parking !== undefined;
}

/**
 * A header value is read from the environment at run time (`{ "env": "EFA_API_TOKEN" }`), so a job
 * file never holds a secret; a literal is allowed for harmless headers (`Accept-Language`).
 */
const headerValueSchema = z.union([z.string(), z.strictObject({ env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name') })]);

/**
 * Headers of every request. A literal value under a credential-like name (Authorization, X-Api-Key,
 * *token*, *key*, *secret*, Cookie, …) is refused: job files are committed, copied and stored in
 * `efa.runs.options`, so a credential there is a leak waiting to happen.
 */
export const headersSchema = z
  .record(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name'), headerValueSchema)
  .superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || !isSecretName(name)) continue;
      const variable = `EFA_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `a credential must not be written into the job file: use { "env": "${variable}" } and set ${variable} in the environment`,
      });
    }
  });

const identifier = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export const jobSchema = z.strictObject({
  /** The JSON Schema an editor checks the file against (schema/job.schema.json); ignored by efa-sync. */
  $schema: z.string().optional(),
  name: z.string().regex(identifier, 'name: letters, digits, _ . - (at most 63)'),
  /**
   * The deployment this job harvests. Every row belongs to one source; jobs of the same deployment
   * share it, so their rows are one set. Default: the job's name.
   */
  source: z.string().regex(identifier, 'source: letters, digits, _ . - (at most 63)').optional(),
  /**
   * The mass-deletion guard: a run that would mark more than this share of a relation's live rows
   * in its scope as gone (and more than a handful) marks none and ends partial.
   */
  maxGonePercent: z.number().min(0).max(100).default(5),
  limits: limitsSchema.default({ maxResponseMiB: 64, responseDeadlineS: 300, maxRetryAfterS: 300 }),
  description: z.string().optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' }),
  region: regionSchema,
  rateLimit: rateLimitSchema,
  sweeps: sweepsSchema,
  /**
   * The deployment's time zone (IANA name): times its answers write without an offset are read in
   * it. Left out, the zone of the centre of the region (src/job/time-zone.ts).
   */
  timeZone: z
    .string()
    .refine(isTimeZone, 'timeZone: an IANA time zone name such as "Europe/Berlin" or "UTC" (not an offset such as +01:00)')
    .optional()
    .describe('The deployment\'s time zone, an IANA name such as "Europe/Berlin": times its answers write without an offset (parking measuredAt, legacy itdDate/itdTime) are read in it. Default: the zone at the centre of the region.'),
  /** Response dialect of the deployment: json (efa-api.md), legacy (outputFormat=JSON), rapidjson, or auto. */
  dialect: z.enum(DIALECT_NAMES).default('json'),
  /** Operation paths of a gateway, e.g. { "coordInfo": "v1/tp/coord" }. */
  paths: z.partialRecord(z.enum(OPERATIONS), z.string().min(1)).optional(),
  headers: headersSchema.optional(),
  /** Snapshot jobs only: how long their time series are kept. */
  snapshots: snapshotsSchema.optional(),
  /** Retention of superseded versions (efa.<relation>_history, sql/014): those that ended more than keepDays ago are pruned at the end of a run; left out, every version is kept. */
  history: z.strictObject({ keepDays: z.number().int().min(1, 'history.keepDays must be >= 1 (leave history out to keep every version)').max(36_500) }).optional(),
});

/** What a job file may say (defaults not yet applied). */
export type JobInput = z.input<typeof jobSchema>;
/** A validated job with defaults applied. */
export type Job = z.output<typeof jobSchema>;
/** A job's `region.bbox` once validated: the one bbox type of the project (tiling/types.ts). */
export type { BBox } from '../tiling/types.js';
export type RegionGeometry = z.output<typeof regionGeometrySchema>;
