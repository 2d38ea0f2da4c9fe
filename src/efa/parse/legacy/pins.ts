import { z } from 'zod';
import type { Pin } from '../../records.js';
import { TextRepairs } from '../../text/mojibake.js';
import { envelopeList, parseEach, RecordProblemError, restOf, type Parsed } from '../common.js';
import { kindSchema, motTypesSchema } from '../fields.js';
import { globalIdOf, nameValues } from '../global-id.js';
import { lonLatText, present } from './values.js';

/** legacy: CoordInfo's `pins[]`. Every value is a string; the name is `desc`, the position `coords`. */
const wirePinSchema = z.looseObject({
  type: kindSchema,
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
  if (!parsed.success) throw new RecordProblemError(['attrs'], parsed.error.issues[0]?.message ?? 'bad MOT list');
  return [...new Set(parsed.data)].sort((a, b) => a - b);
}

/**
 * Legacy writes the object types of efa-api.md; upper-cased in case a server writes them otherwise,
 * with the word as sent kept in `attrs.legacyType` when that changed it.
 */
const objectTypeOf = (word: string): string => word.toUpperCase();

export function parseLegacyPins(body: unknown): Parsed<Pin> {
  return parseEach('coordInfo', 'pins', envelopeList(body, 'pins'), wirePinSchema, (wire, raw, path) => {
    const attrs = nameValues(wire.attrs);
    const localId = present(wire.id);
    const globalId = globalIdOf({ id: localId, attributes: attrs });
    // The global stop id (de:09162:1) is the id other dialects send for the same stop, so it keys
    // the pin; the local `id` (1000001) stays in attrs. Both are kept exactly as sent.
    const id = globalId ?? localId;
    const type = objectTypeOf(wire.type);
    const repairs = new TextRepairs();
    return {
      type,
      ...(id === undefined ? {} : { id }),
      name: repairs.name(wire.desc),
      coord: lonLatText(wire.coords, [...path, 'coords']),
      motTypes: motTypesOf(attrs),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: {
        ...restOf(raw, ['type', 'id', 'desc', 'coords']),
        ...(localId !== undefined && localId !== id ? { localId } : {}),
        ...(type === wire.type ? {} : { legacyType: wire.type }),
        ...repairs.attrs(),
      },
    };
  });
}

