import { z } from 'zod';
import type { Area, Position, Provider } from '../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from './common.js';
import { idSchema, optional } from './fields.js';
import { latLonPointSchema, toClosedRing, type LatLonPoint } from './rings.js';

const ringSchema = z.array(latLonPointSchema);
const ringListSchema = z.array(ringSchema);

/**
 * The spec shows one ring per area; a list of rings (holes, islands) is accepted as well. The
 * nesting is decided up front so a bad point is reported at its own path, not as a vague union miss.
 */
const polygonSchema = z.array(z.unknown()).transform((value, ctx): LatLonPoint[][] => {
  const fail = (error: z.ZodError): never => {
    for (const issue of error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  };
  const first = value[0];
  if (Array.isArray(first) && Array.isArray(first[0])) {
    const rings = ringListSchema.safeParse(value);
    return rings.success ? rings.data : fail(rings.error);
  }
  const ring = ringSchema.safeParse(value);
  if (!ring.success) return fail(ring.error);
  return ring.data.length === 0 ? [] : [ring.data];
});

const wireAreaSchema = z.looseObject({
  id: idSchema,
  name: optional(z.string()).transform((value) => value ?? ''),
  polygon: optional(polygonSchema),
});

/** json dialect: OpArea's `providers[]`. A broken area rejects its provider, with the area's path. */
const wireProviderSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  vehicleType: z.string(),
  areas: optional(z.array(wireAreaSchema)).transform((value) => value ?? []),
});

type WireArea = z.output<typeof wireAreaSchema>;

function toArea(wire: WireArea, index: number): Area {
  const rings: Position[][] = [];
  let closedByParser = false;
  (wire.polygon ?? []).forEach((points, ringIndex) => {
    const closed = toClosedRing(points, ['areas', index, 'polygon', ringIndex]);
    rings.push(closed.ring);
    closedByParser ||= closed.closedByParser;
  });
  return {
    id: wire.id,
    name: wire.name,
    rings: rings.length === 0 ? null : rings,
    ringsClosedByParser: closedByParser,
    attrs: restOf(wire, ['id', 'name', 'polygon']),
  };
}

const KNOWN = ['id', 'name', 'vehicleType', 'areas'] as const;

export function parseProviders(body: unknown): Parsed<Provider> {
  return parseEach('opArea', 'providers', envelopeList(body, 'providers'), wireProviderSchema, (wire, raw) => ({
    id: wire.id,
    name: wire.name,
    vehicleType: wire.vehicleType,
    areas: wire.areas.map(toArea),
    attrs: restOf(raw, KNOWN),
  }));
}
