import { z } from 'zod';
import type { Area, Provider } from '../records.js';
import { envelopeList, ImplausibleCoordinatesError, parseEach, restOf, type Parsed } from './common.js';
import { idSchema, optional } from './fields.js';
import { readPolygon, type Implausible } from './polygon.js';
import { toClosedRing, type ClosedRing } from './rings.js';

/**
 * OpArea's `providers[]` with `areas[]`, as efa-api.md shows it. No dialect has a real OpArea body,
 * so all three read this one shape; they differ only in how the list is found (they pass the items
 * in) and in what an implausible point means (ProviderOptions).
 */

/** Ids and names are kept as sent, in every dialect; only what an implausible point means differs. */
export interface ProviderOptions {
  readonly implausible: Implausible;
}

const wireAreaSchema = z.looseObject({
  id: idSchema,
  name: optional(z.string()).transform((value) => value ?? ''),
  polygon: z.unknown().optional(),
});

/** A broken area rejects its provider, with the area's path. */
const wireProviderSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  vehicleType: z.string(),
  areas: optional(z.array(wireAreaSchema)).transform((value) => value ?? []),
});

type WireArea = z.output<typeof wireAreaSchema>;

/**
 * A RecordProblemError stays relative to the provider (parseEach adds its path); a grid coordinate
 * stops the run, so it gets the full path here (`providers[3].areas[0].polygon[7]`).
 */
function closedRings(polygon: unknown, path: readonly PropertyKey[], recordPath: readonly PropertyKey[], implausible: Implausible): ClosedRing[] {
  if (polygon === undefined || polygon === null) return [];
  try {
    return readPolygon(polygon, path, implausible).map((ring, r) => toClosedRing(ring, [...path, r]));
  } catch (error) {
    if (error instanceof ImplausibleCoordinatesError) throw new ImplausibleCoordinatesError([...recordPath, ...error.path], error.value, error.gridShaped);
    throw error;
  }
}

function toArea(wire: WireArea, rings: readonly ClosedRing[]): Area {
  return {
    id: wire.id,
    name: wire.name,
    // efa-api.md's rings are one polygon: the first the outer ring, any further ones its holes.
    polygons: rings.length === 0 ? null : [rings.map((closed) => closed.ring)],
    ringsClosedByParser: rings.some((closed) => closed.closedByParser),
    attrs: restOf(wire, ['id', 'name', 'polygon']),
  };
}

const KNOWN = ['id', 'name', 'vehicleType', 'areas'] as const;

/** The providers of an OpArea answer whose list the dialect has already found. */
export function parseProviderList(items: readonly unknown[], options: ProviderOptions): Parsed<Provider> {
  return parseEach('opArea', 'providers', items, wireProviderSchema, (wire, raw, recordPath) => {
    const areas = wire.areas.map((area, index) => {
      const rings = closedRings(area.polygon, ['areas', index, 'polygon'], recordPath, options.implausible);
      return toArea(area, rings);
    });
    return { id: wire.id, name: wire.name, vehicleType: wire.vehicleType, areas, attrs: restOf(raw, KNOWN) };
  });
}

/** json dialect: it range-checks coordinates as fields, so an implausible point is a reject here. */
export function parseProviders(body: unknown): Parsed<Provider> {
  return parseProviderList(envelopeList(body, 'providers'), { implausible: 'reject' });
}
