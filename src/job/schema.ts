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
const geometryType = 'The GeoJSON geometry type.';
export const polygonSchema = z.strictObject({ type: z.literal('Polygon').describe(geometryType), coordinates: z.array(linearRing).min(1).describe('Rings of [lon, lat] positions: the outer ring first, then its holes.') });
export const multiPolygonSchema = z.strictObject({
  type: z.literal('MultiPolygon').describe(geometryType),
  coordinates: z.array(z.array(linearRing).min(1)).min(1).describe('Polygons, each its rings of [lon, lat] positions (outer ring first).'),
});
export const regionGeometrySchema = z.discriminatedUnion('type', [polygonSchema, multiPolygonSchema]);

export const regionSchema = z.union([
  z.strictObject({ bbox: bboxSchema.describe('The region as [minLon, minLat, maxLon, maxLat] in WGS84, longitude first.') }),
  // A string is a path to a GeoJSON file, relative to the job file; loadJob resolves it.
  z.strictObject({
    geojson: z
      .union([regionGeometrySchema, z.string().min(1)])
      .describe('The region as a GeoJSON Polygon or MultiPolygon ([lon, lat]), or the path of a GeoJSON file relative to the job file.'),
  }),
]);

/**
 * Bounds on what one run may cost: nothing a server sends can take more memory, time or requests
 * than these.
 */
export const limitsSchema = z.strictObject({
  maxResponseMiB: z.number().positive().max(4096).default(64).describe('Largest reply body accepted, after decompression, in MiB.'),
  responseDeadlineS: z
    .number().positive().max(3600).default(300)
    .describe('Seconds for a whole reply to arrive, last byte included (rateLimit.timeoutMs bounds each attempt).'),
  maxRetryAfterS: z
    .number().min(0).max(86_400).default(300)
    .describe('A Retry-After longer than this many seconds fails the request with a warning instead of parking the run.'),
  outageWaitS: z
    .number().min(1).max(86_400).default(900)
    .describe('How long a run waits, probing a few times a minute, for an upstream that stopped answering every request mid-run; past it the run stops, resumable (exit 75). A shorter outage costs no unit.'),
  requestBudget: z
    .number().int().positive().optional()
    .describe("Most requests one run may send; past it the run ends partial (exit 3). Default: ten times the plan's estimate, at least 20,000."),
});

export const rateLimitSchema = z.strictObject({
  requestsPerSecond: z.number().positive('requestsPerSecond must be > 0').max(1000).describe('Hard ceiling on requests per second to the deployment (--rps overrides it); keep it polite.'),
  concurrency: z.number().int().positive('concurrency must be >= 1').max(256).default(4).describe('Requests in flight at most (--concurrency overrides it).'),
  retries: z.number().int().min(0).max(20).default(4).describe('Retries of a failed request (5xx, 429, timeout), with backoff and Retry-After respected.'),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe('Milliseconds one attempt may take before it is aborted and retried.'),
});

export const objectTypeSchema = z.enum(OBJECT_TYPES);
const parkingObjectTypeNames = Object.keys(PARKING_OBJECT_TYPES) as [ParkingObjectType, ...ParkingObjectType[]];

const motList = z.array(z.number().int().min(0).max(99)).min(1);
const parkingKinds = "'all', or the parking kinds: multiStorey, carPark, singleSpace, zone, chargingPoint.";

/**
 * The one box-sweep shape: what every sweep that tiles the region with box searches (coord, vehicles,
 * parking) is told about its boxes, under the same names in each (`sweeps.coord.maxPerRequest`,
 * `sweeps.vehicles.maxPerRequest`, … as always). The box step (src/sweep) reads only this.
 */
export const boxSweepShape = {
  maxPerRequest: z
    .number().int().min(2, 'maxPerRequest must be >= 2').max(100_000)
    .describe("Objects one box search asks for (the request's max); a box whose answer reaches it is split where its hits lie."),
  minTileSizeDeg: z
    .number().positive().max(10).optional()
    .describe(
      'The smallest tile, in degrees on both axes: a tile that small and still capped is recorded capped. Left out: 0.002°, and a capped tile that small ' +
        "is split further as its answer's density asks (down to 2e-5°), so a dense region does not end partial.",
    ),
};

/** The box-sweep part of a coord, vehicles or parking sweep. */
export type BoxSweepConfig = z.output<z.ZodObject<typeof boxSweepShape>>;

export const coordSweepSchema = z.strictObject({
  types: z.array(objectTypeSchema).min(1, 'coord.types needs at least one object type').describe('The EFA object types to sweep (STOP, POI_POINT, …); each becomes rows of efa.pins.'),
  ...boxSweepShape,
  inclMOT: motList.optional().describe('Means of transport to include (EFA MOT ids): a stop counts as looked for only when all its means are included.'),
  exclMOT: motList.optional().describe('Means of transport to exclude (EFA MOT ids): a stop with any of them is not looked for.'),
  parking: z
    .strictObject({
      objectTypes: z.union([z.literal('all'), z.array(z.enum(parkingObjectTypeNames)).min(1)]).default('all').describe(parkingKinds),
      info: z.boolean().default(true).describe('Ask for parking details (parkObjInfo=1).'),
      realtime: z.boolean().default(false).describe('Ask for real-time occupancy (parkObjInfoRealtime=1); needs info.'),
    })
    .refine((p) => !p.realtime || p.info, { message: 'parking.realtime requires parking.info (parkObjInfoRealtime needs parkObjInfo)', path: ['realtime'] })
    .optional()
    .describe('Parking objects as nightly pins (the parking box search over each tile). Left out: no parking sweep.'),
  // Left out rather than defaulted, so the job's hash (resume) stays; src/sweep/nightly/pilot.ts does it.
  pilot: z
    .enum(['auto', 'off'])
    .optional()
    .describe(
      'Night one by a pilot type. auto (left out): a night planned without known pins sweeps a sparse type first and plans the types ' +
        'that lie where it lies from its pins; off: every type together, by the splitter alone. Nights planned from known pins are the same either way.',
    ),
});

export const opAreaSweepSchema = z.strictObject({
  mode: z.enum(['ALL', 'RADIAL']).describe('ALL: every operating area in one request; RADIAL: circle searches over the region.'),
  geometry: z.boolean().default(true).describe("Ask for the areas' polygons."),
  radiusM: z.number().int().positive().optional().describe("RADIAL only: the search radius around each tile centre, in metres. Default: the tile's half diagonal."),
  vehicleKinds: z.array(z.enum(OPAREA_VEHICLE_KINDS)).min(1).optional().describe('Only providers of these vehicle kinds. Left out: all.'),
  clipToRegion: z.boolean().default(false).describe("Keep only operating areas that touch the job's region (some deployments answer nationwide)."),
});

export const servingLinesSweepSchema = z.strictObject({
  forStops: z.boolean().default(false).describe('Fetch the lines serving each stop (efa.stop_lines) for new, changed and due stops.'),
  lineNames: z.array(z.string().min(1)).default([]).describe('Line names to look up (efa.lines).'),
  refreshEveryNights: z.number().int().min(1).max(365).default(7).describe("Unchanged stops have their lines refetched in a rolling share, every stop at least every this many nights."),
  lineReqType: z
    .array(z.enum(Object.keys(LINE_REQ_TYPES) as [LineReqType, ...LineReqType[]]))
    .default([])
    .describe('Line types to ask for (STT, TTB, ROB, StationTT). Empty: all (lineReqType=0).'),
});

const { filterPublicationStatus: _status, ...addInfoFilters } = addInfoSchema.shape;
/**
 * AddInfo takes the filters of efa-api.md under their own names (filterInfoType, filterMOTType, …;
 * dates as YYYY-MM-DD, sent as DD-MM-YYYY), plus `publicationStatus` for filterPublicationStatus.
 */
export const addInfoSweepSchema = z.strictObject({
  publicationStatus: z.enum(['current', 'history']).default('current').describe('current: active notices; history: historical ones (filterPublicationStatus).'),
  ...addInfoFilters,
});

/**
 * The snapshot sweep of sharing vehicles: a box search of the region carrying the vehicle filters
 * (vehSF, vehEngineType, vehLocType<i>, vehAtStation), split on the cap like CoordInfo; then, within
 * `detail.budget` requests, the vehicle-detail mode (vehSpec, vehAvail) for the vehicles seen.
 */
export const vehiclesSweepSchema = z.strictObject({
  ...boxSweepShape,
  kinds: z.array(z.enum(SHARING_VEHICLE_KINDS)).min(1, 'vehicles.kinds: at least one kind, or leave it out for all').optional().describe('Vehicle kinds asked for (vehSF). Left out: all four.'),
  engines: z.array(z.enum(ENGINE_TYPES)).min(1, 'vehicles.engines: at least one engine type, or leave it out for all').optional().describe('Engine types asked for (vehEngineType). Left out: all.'),
  locationTypes: z
    .array(z.enum(LOCATION_TYPES))
    .min(1, 'vehicles.locationTypes: at least one location type, or leave it out for all')
    .optional()
    .describe('Location types asked for (vehLocType<i>). Left out: all.'),
  atStation: z.boolean().default(true).describe('Also vehicles standing at stations (vehAtStation=1).'),
  detail: z
    .strictObject({
      budget: z.number().int().min(0).max(100_000).describe('Detail requests per snapshot at most; a different sample of vehicles each time.'),
      spec: z.boolean().default(true).describe("Ask for each vehicle's specification (vehSpec)."),
      availability: z.boolean().default(true).describe("Ask for each vehicle's availability (vehAvail)."),
    })
    .refine((d) => d.spec || d.availability, { message: 'vehicles.detail: ask for spec, availability or both', path: ['spec'] })
    .optional()
    .describe('The vehicle-detail mode: one request per vehicle seen, within budget. Left out: no detail requests.'),
});

/** The snapshot sweep of parking objects with their real-time occupancy (parkObjInfo=1&parkObjInfoRealtime=1). */
export const parkingSnapshotSweepSchema = z.strictObject({
  objectTypes: z.union([z.literal('all'), z.array(z.enum(parkingObjectTypeNames)).min(1)]).default('all').describe(parkingKinds),
  realtime: z.literal(true, 'parking.realtime must be true: a parking snapshot is its real-time occupancy').describe('Must be true: a parking snapshot is its real-time occupancy.'),
  ...boxSweepShape,
});

/** Snapshot retention: partitions (one per UTC day) older than this are dropped whole. */
export const snapshotsSchema = z.strictObject({
  retentionDays: z.number().int().min(1, 'snapshots.retentionDays must be >= 1').max(36_500).default(90).describe('Days of raw snapshots kept: day partitions older than that are dropped whole.'),
  rollupRetentionDays: z
    .number().int().min(1, 'snapshots.rollupRetentionDays must be >= 1').max(36_500).default(730)
    .describe('Days of the hourly roll-ups the time-series views read (a few rows per hour), kept longer than the raw series.'),
});

const SNAPSHOT_SWEEPS = ['vehicles', 'parking'] as const;
const NIGHTLY_SWEEPS = ['coord', 'opArea', 'servingLines', 'addInfo', 'stopFinder'] as const;

export const sweepsSchema = z
  .strictObject({
  coord: coordSweepSchema.optional().describe('Nightly CoordInfo box searches over the tiled region: stops, POIs, parking and other pins (efa.pins).'),
  opArea: opAreaSweepSchema.optional().describe('Nightly OpArea: sharing providers and their operating areas.'),
  servingLines: servingLinesSweepSchema.optional().describe('Nightly ServingLines: lines, and the lines serving each stop.'),
  addInfo: addInfoSweepSchema.optional().describe('AddInfo: disruption notices (efa.notices), with the API\'s filters under their own names.'),
  stopFinder: z
    .strictObject({ names: z.array(z.string().min(1)).min(1).describe('Stop names to resolve.') })
    .optional()
    .describe('StopFinder: the best match of each name is stored as a pin.'),
  vehicles: vehiclesSweepSchema.optional().describe('Snapshot job: sharing vehicles as a time series (efa.vehicle_snapshots), run every 5–15 minutes.'),
  parking: parkingSnapshotSweepSchema.optional().describe('Snapshot job: parking occupancy as a time series (efa.parking_snapshots); coord.parking stays the nightly pins.'),
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
const headerValueSchema = z.union([
  z.string(),
  z.strictObject({ env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').describe('The environment variable whose value is sent.') }),
]);

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
  $schema: z.string().optional().describe('The JSON Schema an editor checks this file against (./node_modules/efa-sync/schema/job.schema.json); efa-sync ignores it.'),
  name: z.string().regex(identifier, 'name: letters, digits, _ . - (at most 63)').describe("The job's name (letters, digits, _ . -, at most 63): its runs, lock and metrics carry it."),
  source: z
    .string().regex(identifier, 'source: letters, digits, _ . - (at most 63)').optional()
    .describe("The EFA deployment this job harvests: every row belongs to one source, shared by the deployment's jobs. Default: the job's name."),
  deployment: z
    .string().regex(/^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)*$/, 'deployment: a catalogue id such as de-vvs').optional()
    .describe('A catalogue entry (efa-sync deployments) whose baseUrl, dialect, timeZone, rateLimit, paths, headers and source this job takes; keys the job states override it.'),
  maxGonePercent: z
    .number().min(0).max(100).default(5)
    .describe("Mass-deletion guard: a run that would mark more than this percentage of a relation's live rows in its scope gone (and more than 10) marks none and ends partial."),
  limits: limitsSchema
    .default({ maxResponseMiB: 64, responseDeadlineS: 300, maxRetryAfterS: 300, outageWaitS: 900 })
    .describe('Bounds on what one run may cost: nothing a server sends takes more memory, time or requests than these.'),
  description: z.string().optional().describe('Free text about the job, for people; efa-sync does not read it.'),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' })
    .describe("The deployment's base URL, the part before XML_COORD_REQUEST. May be left out when --base-url or EFA_BASE_URL gives it."),
  region: regionSchema.describe('The region to tile: a bbox or a GeoJSON (multi)polygon.'),
  rateLimit: rateLimitSchema.describe('How hard the deployment is asked: requests per second, in flight, retries and the per-attempt timeout.'),
  sweeps: sweepsSchema.describe('The operations to sweep: nightly ones (coord, opArea, servingLines, addInfo, stopFinder) or snapshot ones (vehicles, parking), not both.'),
  timeZone: z
    .string()
    .refine(isTimeZone, 'timeZone: an IANA time zone name such as "Europe/Berlin" or "UTC" (not an offset such as +01:00)')
    .optional()
    .describe('The deployment\'s time zone, an IANA name such as "Europe/Berlin": times its answers write without an offset (parking measuredAt, legacy itdDate/itdTime) are read in it. Default: the zone at the centre of the region.'),
  dialect: z.enum(DIALECT_NAMES).default('json').describe('The answers\' dialect: json (the API description), legacy (outputFormat=JSON), rapidjson, xml (outputFormat=XML, the interface\'s own format), or auto (--dialect overrides it).'),
  paths: z
    .partialRecord(z.enum(OPERATIONS), z.string().min(1))
    .optional()
    .describe('Paths of the operations behind a gateway, e.g. { "coordInfo": "v1/tp/coord" }. Left out: the EFA names (XML_COORD_REQUEST, …).'),
  headers: headersSchema.optional().describe('Headers of every request; a credential is { "env": "VARIABLE" }, read from the environment and never logged.'),
  snapshots: snapshotsSchema.optional().describe('Snapshot jobs only: how long their time series are kept.'),
  history: z
    .strictObject({
      keepDays: z
        .number().int().min(1, 'history.keepDays must be >= 1 (leave history out to keep every version)').max(36_500)
        .describe('Versions that stopped being current more than this many days ago are pruned at the end of each run.'),
    })
    .optional()
    .describe('Retention of superseded versions (efa.<relation>_history). Left out: every version is kept.'),
});

/** What a job file may say (defaults not yet applied). */
export type JobInput = z.input<typeof jobSchema>;
/** A validated job with defaults applied. */
export type Job = z.output<typeof jobSchema>;
/** A job's `region.bbox` once validated: the one bbox type of the project (tiling/types.ts). */
export type { BBox } from '../tiling/types.js';
export type RegionGeometry = z.output<typeof regionGeometrySchema>;
