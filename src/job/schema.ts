import { z } from 'zod';
import { LINE_REQ_TYPES, OBJECT_TYPES, PARKING_OBJECT_TYPES, type LineReqType, type ParkingObjectType } from '../efa/index.js';
import { addInfoSchema } from '../efa/request/add-info.js';
import { DIALECT_NAMES } from '../efa/dialects/index.js';
import { OPERATIONS } from '../efa/operations.js';
import { OPAREA_VEHICLE_KINDS } from '../efa/request/op-area.js';
import { isSecretName } from '../util/redact.js';

/**
 * The job file schema (contract section 3). Every object is strict: an unknown key is an error,
 * because a misspelt option that is silently ignored is worse than a failed start.
 */

const longitude = z.number().min(-180, 'longitude must be >= -180').max(180, 'longitude must be <= 180');
const latitude = z.number().min(-90, 'latitude must be >= -90').max(90, 'latitude must be <= 90');

export const bboxSchema = z
  .tuple([longitude, latitude, longitude, latitude])
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
const linearRing = z.array(position).min(4, 'a linear ring needs at least 4 positions');
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

export const coordSweepSchema = z.strictObject({
  types: z.array(objectTypeSchema).min(1, 'coord.types needs at least one object type'),
  maxPerRequest: z.number().int().min(2, 'maxPerRequest must be >= 2').max(100_000),
  /** A capped tile smaller than this (degrees, both axes) is not split again but recorded as capped. */
  minTileSizeDeg: z.number().positive().max(10).default(0.002),
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

export const sweepsSchema = z.strictObject({
  coord: coordSweepSchema.optional(),
  opArea: opAreaSweepSchema.optional(),
  servingLines: servingLinesSweepSchema.optional(),
  addInfo: addInfoSweepSchema.optional(),
  /** Stop names to resolve with StopFinder; the best match of each is stored as a pin. */
  stopFinder: z.strictObject({ names: z.array(z.string().min(1)).min(1) }).optional(),
});

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
  /** Response dialect of the deployment: json (efa-api.md), legacy (outputFormat=JSON), rapidjson, or auto. */
  dialect: z.enum(DIALECT_NAMES).default('json'),
  /** Operation paths of a gateway, e.g. { "coordInfo": "v1/tp/coord" }. */
  paths: z.partialRecord(z.enum(OPERATIONS), z.string().min(1)).optional(),
  headers: headersSchema.optional(),
});

/** What a job file may say (defaults not yet applied). */
export type JobInput = z.input<typeof jobSchema>;
/** A validated job with defaults applied. */
export type Job = z.output<typeof jobSchema>;
export type BBox = z.output<typeof bboxSchema>;
export type RegionGeometry = z.output<typeof regionGeometrySchema>;
