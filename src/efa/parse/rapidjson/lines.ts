import { z } from 'zod';
import type { ServingLine } from '../../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from '../common.js';
import { nonNegativeIntSchema, optional, optionalIdSchema } from '../fields.js';
import { TextRepairs } from './common.js';

/**
 * rapidJSON ServingLines: `lines[]` with `product.class` as the MOT, `destination.name` as the
 * direction and `id` as the line id (VVS sample). `number` can be missing next to a
 * `disassembledName`, and a shuttle in the sample has a `number` but no `disassembledName`.
 */
const wireLineSchema = z.looseObject({
  id: optionalIdSchema,
  name: optional(z.string()),
  disassembledName: optional(z.string()),
  number: optional(z.union([z.string(), z.int()]).transform(String)),
  product: z.looseObject({ class: nonNegativeIntSchema }),
  destination: optional(z.looseObject({ name: optional(z.string()) })),
});

/**
 * The canonical line id `network:line:supplement:direction:project`. VVS (EFA 10.2) appends a
 * sixth element (`vvs:10001: :H:j17:1`), which legacy JSON's `diva.stateless` and other rapidJSON
 * deployments (`van:02067: :H:j24`) do not have; it is cut so all dialects key a line alike, and
 * the full id is kept in `attrs.rapidId`.
 */
export function canonicalLineId(id: string): string {
  const parts = id.split(':');
  return parts.length > 5 ? parts.slice(0, 5).join(':') : id;
}

const KNOWN = ['id', 'name', 'number'] as const;

export function parseRapidServingLines(body: unknown): Parsed<ServingLine> {
  const items = envelopeList(body, 'lines');
  return parseEach('servingLines', ['lines'], items, wireLineSchema, (wire, raw) => {
    const repairs = new TextRepairs();
    const id = wire.id === undefined ? undefined : canonicalLineId(wire.id);
    const number = wire.number ?? wire.disassembledName ?? '';
    return {
      ...(id === undefined ? {} : { id }),
      name: repairs.name(wire.name ?? number),
      number,
      mot: wire.product.class,
      direction: repairs.text(wire.destination?.name ?? ''),
      attrs: {
        // product and destination stay whole: they carry more than the mapped class and name.
        ...restOf(raw, KNOWN),
        ...(id !== undefined && id !== wire.id ? { rapidId: wire.id } : {}),
        ...repairs.attrs(),
      },
    };
  });
}
