import { z } from 'zod';
import type { ServingLine } from '../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from './common.js';
import { nonNegativeIntSchema, optional, optionalIdSchema } from './fields.js';

/** json dialect: ServingLines' `servingLines[]`. */
const wireServingLineSchema = z.looseObject({
  id: optionalIdSchema,
  name: z.string(),
  number: z.union([z.string(), z.int()]).transform(String),
  mot: nonNegativeIntSchema,
  direction: optional(z.string()).transform((value) => value ?? ''),
});

const KNOWN = ['id', 'name', 'number', 'mot', 'direction'] as const;

export function parseServingLines(body: unknown): Parsed<ServingLine> {
  const items = envelopeList(body, 'servingLines');
  return parseEach('servingLines', 'servingLines', items, wireServingLineSchema, (wire, raw) => ({
    ...(wire.id === undefined ? {} : { id: wire.id }),
    name: wire.name,
    number: wire.number,
    mot: wire.mot,
    direction: wire.direction,
    attrs: restOf(raw, KNOWN),
  }));
}
