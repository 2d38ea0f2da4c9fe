import { z } from 'zod';
import { OPERATIONS } from './operations.js';

/**
 * The normalised records every dialect yields. Whatever a deployment calls its fields, the rest of
 * efa-sync sees only these shapes; fields a dialect does not map go to `attrs` untouched.
 */

export const attrsSchema = z.record(z.string(), z.unknown());

export const coordSchema = z.object({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
});

export const isoDaySchema = z.iso.date();

export const pinSchema = z.object({
  type: z.string().min(1),
  id: z.string().min(1).optional(),
  name: z.string(),
  coord: coordSchema,
  motTypes: z.array(z.int().nonnegative()),
  /** The stop's global id (IFOPT / DHID, `de:08111:6008`) where the answer carries one. */
  globalId: z.string().min(1).optional(),
  attrs: attrsSchema,
});

export const assignedStopSchema = z.object({ id: z.string().min(1), name: z.string(), attrs: attrsSchema });

export const locationSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: z.string().min(1),
  isBest: z.boolean(),
  matchQuality: z.number(),
  coord: coordSchema.optional(),
  assignedStops: z.array(assignedStopSchema).optional(),
  /** Means of transport of a stop (rapidJSON productClasses / modes), where the answer says. */
  motTypes: z.array(z.int().nonnegative()).optional(),
  /** The stop's global id (IFOPT / DHID) where the answer carries one (legacy `gid`, rapidJSON properties). */
  globalId: z.string().min(1).optional(),
  attrs: attrsSchema,
});

export const servingLineSchema = z.object({
  id: z.string().min(1).optional(),
  name: z.string(),
  number: z.string(),
  mot: z.int().nonnegative(),
  direction: z.string(),
  attrs: attrsSchema,
});

export const noticeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  title: z.string(),
  text: z.string(),
  validFrom: isoDaySchema.optional(),
  validTo: isoDaySchema.optional(),
  lines: z.array(z.string()),
  severity: z.string().optional(),
  attrs: attrsSchema,
});

/** A position in GeoJSON order: longitude first. */
export const positionSchema = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);

/** A closed linear ring in [lon, lat] order. */
export const ringSchema = z.array(positionSchema).min(4);

/**
 * Which order an answer's GeoJSON positions were in. GeoJSON says [lon, lat], but EFA writes its
 * own coordinates [lat, lon]; `ambiguous` means every value fits either reading (all within
 * ±90), so the positions were read as GeoJSON and the job's region decides when rows are built.
 */
export const coordOrderSchema = z.enum(['lonLat', 'latLon', 'ambiguous']);

export const areaSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /**
   * The area's polygons (a MultiPolygon's parts; one for a Polygon), each a list of closed rings
   * in [lon, lat] order, the outer ring first and its holes after it; null when the answer carried
   * no areal geometry.
   */
  polygons: z.array(z.array(ringSchema).min(1)).min(1).nullable(),
  /** True when the parser had to repeat a ring's first point at its end. */
  ringsClosedByParser: z.boolean(),
  /** Only for GeoJSON geometries (rapidJSON `operatingZone`): the order their positions were read in. */
  coordOrder: coordOrderSchema.optional(),
  attrs: attrsSchema,
});

export const providerSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  vehicleType: z.string(),
  areas: z.array(areaSchema),
  attrs: attrsSchema,
});

/** One vehicle kind's slots at a sharing station (the published schema's `slots`); null where not sent. */
export const slotCountsSchema = z.object({
  total: z.int().nonnegative().nullable(),
  empty: z.int().nonnegative().nullable(),
  freeVehicles: z.int().nonnegative().nullable(),
});

/**
 * A station of station-based sharing (rapidJSON `coordInfoDetails.station`, read off the CoordInfo
 * objects that carry one: the station itself, or a vehicle standing at it). Keyed by its provider
 * and its id, as the provider numbers its stations itself.
 */
export const sharingStationSchema = z.object({
  providerId: z.string().min(1),
  id: z.string().min(1),
  name: z.string(),
  coord: coordSchema,
  operatingAreaId: z.string().min(1).optional(),
  /** The station's number as the provider shows it (`stNum`). */
  number: z.string().optional(),
  address: z.string().optional(),
  /** Per vehicle kind as the schema names it (car, carElectric, bike, eBike, combined, ...). */
  slots: z.record(z.string(), slotCountsSchema),
  /** `oOS`: the station is out of service; absent when the answer does not say. */
  outOfService: z.boolean().optional(),
  attrs: attrsSchema,
});

/** A record that could not be normalised; kept for `efa.rejects`, never silently dropped. */
export const rejectSchema = z.object({
  operation: z.enum(OPERATIONS),
  reason: z.string(),
  raw: z.unknown(),
});

/** A `message`/`systemMessages` entry of the answer, kept so the run can record what the server said. */
export const serverMessageSchema = z.object({
  type: z.string().optional(),
  code: z.string().optional(),
  module: z.string().optional(),
  text: z.string(),
  attrs: attrsSchema,
});

/** The pin type every dialect normalises a car park to: parking is swept as pins by night and snapshotted by day. */
export const PARKING = 'PARKING';

export type Coord = z.infer<typeof coordSchema>;
export type Pin = z.infer<typeof pinSchema>;
export type AssignedStop = z.infer<typeof assignedStopSchema>;
export type Location = z.infer<typeof locationSchema>;
export type ServingLine = z.infer<typeof servingLineSchema>;
export type Notice = z.infer<typeof noticeSchema>;
export type Position = z.infer<typeof positionSchema>;
export type Area = z.infer<typeof areaSchema>;
export type CoordOrder = z.infer<typeof coordOrderSchema>;
export type Provider = z.infer<typeof providerSchema>;
export type SlotCounts = z.infer<typeof slotCountsSchema>;
export type SharingStation = z.infer<typeof sharingStationSchema>;
export type Reject = z.infer<typeof rejectSchema>;
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** Which record kind each operation yields. */
export interface RecordsByOperation {
  coordInfo: Pin;
  stopFinder: Location;
  servingLines: ServingLine;
  addInfo: Notice;
  opArea: Provider;
}
