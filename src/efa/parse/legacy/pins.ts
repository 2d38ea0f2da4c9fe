import { z } from 'zod';
import type { Pin } from '../../records.js';
import { envelopeList, parseEach, RecordProblem, restOf, type Parsed } from '../common.js';
import { motTypesSchema } from '../fields.js';
import { lonLatText, nameValues, present, repairRecord } from './values.js';

/** legacy: CoordInfo's `pins[]`. Every value is a string; the name is `desc`, the position `coords`. */
const wirePinSchema = z.looseObject({
  type: z.string().trim().min(1),
  id: z.unknown().optional(),
  desc: z.string(),
  coords: z.string(),
  attrs: z.array(z.looseObject({ name: z.string(), value: z.unknown() })).nullish(),
});

/**
 * MOT types: `STOP_MEANS_LIST` ("2,1,4,3,104", the full list) or, without it, `STOP_MAJOR_MEANS`.
 * Sorted and de-duplicated so the record does not depend on the server's order.
 */
function motTypesOf(attrs: Map<string, string>): number[] {
  const text = attrs.get('STOP_MEANS_LIST') ?? attrs.get('STOP_MAJOR_MEANS');
  const parsed = motTypesSchema.safeParse(text);
  if (!parsed.success) throw new RecordProblem(['attrs'], parsed.error.issues[0]?.message ?? 'bad MOT list');
  return [...new Set(parsed.data)].sort((a, b) => a - b);
}

export function parseLegacyPins(body: unknown): Parsed<Pin> {
  const items = envelopeList(body, 'pins').map(repairRecord);
  return parseEach('coordInfo', 'pins', items, wirePinSchema, (wire, raw, path) => {
    const attrs = nameValues(wire.attrs);
    const localId = present(wire.id);
    // The global stop id (de:09162:1) is the one other dialects send; the local `id` stays in attrs.
    const id = present(attrs.get('STOP_GLOBAL_ID')) ?? localId;
    return {
      type: wire.type.toUpperCase(),
      ...(id === undefined ? {} : { id }),
      name: wire.desc,
      coord: lonLatText(wire.coords, [...path, 'coords']),
      motTypes: motTypesOf(attrs),
      attrs: { ...restOf(raw, ['type', 'id', 'desc', 'coords']), ...(localId !== undefined && localId !== id ? { localId } : {}) },
    };
  });
}
