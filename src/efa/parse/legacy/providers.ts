import { z } from 'zod';
import type { Area, Position, Provider } from '../../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from '../common.js';
import { idSchema } from '../fields.js';
import { toClosedRing } from '../rings.js';
import { polygonRings } from './polygon.js';
import { repairRecord } from './values.js';

/** legacy: OpArea keeps the efa-api.md shape (`providers[]`, `areas[]`); polygons may vary (polygon.ts). */
const wireAreaSchema = z.looseObject({
  id: idSchema,
  name: z.string().nullish(),
  polygon: z.unknown().optional(),
});

const wireProviderSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  vehicleType: z.string(),
  areas: z.array(wireAreaSchema).nullish(),
});

function toArea(wire: z.output<typeof wireAreaSchema>, index: number): Area {
  const rings: Position[][] = [];
  let closedByParser = false;
  const path = ['areas', index, 'polygon'];
  const points = wire.polygon === undefined || wire.polygon === null ? [] : polygonRings(wire.polygon, path);
  points.forEach((ring, r) => {
    const closed = toClosedRing(ring, [...path, r]);
    rings.push(closed.ring);
    closedByParser ||= closed.closedByParser;
  });
  return {
    id: wire.id,
    name: wire.name ?? '',
    rings: rings.length === 0 ? null : rings,
    ringsClosedByParser: closedByParser,
    attrs: restOf(wire, ['id', 'name', 'polygon']),
  };
}

export function parseLegacyProviders(body: unknown): Parsed<Provider> {
  const items = envelopeList(body, 'providers').map(repairRecord);
  return parseEach('opArea', 'providers', items, wireProviderSchema, (wire, raw) => ({
    id: wire.id,
    name: wire.name,
    vehicleType: wire.vehicleType,
    areas: (wire.areas ?? []).map(toArea),
    attrs: restOf(raw, ['id', 'name', 'vehicleType', 'areas']),
  }));
}
