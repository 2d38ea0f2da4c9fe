import { z } from 'zod';
import type { Area, Position, Provider } from '../../records.js';
import { ImplausibleCoordinates, restOf, type Parsed } from '../common.js';
import { idSchema, optional } from '../fields.js';
import { toClosedRing, type LatLonPoint } from '../rings.js';
import { parseRecords, rapidList, TextRepairs } from './common.js';
import { readPolygon } from './polygon.js';

/**
 * OpArea in the rapidJSON profile. No rapidJSON (or any) OpArea body is public, so this keeps the
 * efa-api.md shape (`providers[]` with `areas[]`), reading `polygon` in every form `readPolygon`
 * accepts. A broken area rejects its provider, with the area's path.
 */
const wireAreaSchema = z.looseObject({
  id: idSchema,
  name: optional(z.string()).transform((value) => value ?? ''),
  polygon: z.unknown(),
});

const wireProviderSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  vehicleType: z.string(),
  areas: optional(z.array(wireAreaSchema)).transform((value) => value ?? []),
});

type WireArea = z.output<typeof wireAreaSchema>;

/** Record problems are reported relative to the provider; a grid coordinate with its full path. */
function polygonOf(wire: WireArea, path: readonly PropertyKey[], recordPath: readonly PropertyKey[]): LatLonPoint[][] {
  if (wire.polygon === undefined || wire.polygon === null) return [];
  try {
    return readPolygon(wire.polygon, path);
  } catch (error) {
    if (error instanceof ImplausibleCoordinates) throw new ImplausibleCoordinates([...recordPath, ...error.path], error.value);
    throw error;
  }
}

function toArea(wire: WireArea, index: number, repairs: TextRepairs, recordPath: readonly PropertyKey[]): Area {
  const path = ['areas', index, 'polygon'];
  const rings: Position[][] = [];
  let closedByParser = false;
  polygonOf(wire, path, recordPath).forEach((ring, ringIndex) => {
    const closed = toClosedRing(ring, [...path, ringIndex]);
    rings.push(closed.ring);
    closedByParser ||= closed.closedByParser;
  });
  return {
    id: wire.id,
    name: repairs.text(wire.name),
    rings: rings.length === 0 ? null : rings,
    ringsClosedByParser: closedByParser,
    attrs: restOf(wire, ['id', 'name', 'polygon']),
  };
}

const KNOWN = ['id', 'name', 'vehicleType', 'areas'] as const;

export function parseRapidProviders(body: unknown): Parsed<Provider> {
  const items = rapidList(body, 'providers');
  return parseRecords('opArea', ['providers'], items, wireProviderSchema, (wire, raw, path) => {
    const repairs = new TextRepairs();
    const name = repairs.text(wire.name);
    const areas = wire.areas.map((area, index) => toArea(area, index, repairs, path));
    return { id: wire.id, name, vehicleType: wire.vehicleType, areas, attrs: { ...restOf(raw, KNOWN), ...repairs.attrs() } };
  });
}
