import { z } from 'zod';
import type { Notice } from '../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from './common.js';
import { idSchema, isoDayTextSchema, kindSchema, optional } from './fields.js';

/** json dialect: AddInfo's `infos[]`. The ID is required: notices are de-duplicated by it. */
const wireNoticeSchema = z.looseObject({
  id: idSchema,
  type: kindSchema,
  title: optional(z.string()).transform((value) => value ?? ''),
  text: optional(z.string()).transform((value) => value ?? ''),
  validFrom: optional(isoDayTextSchema),
  validTo: optional(isoDayTextSchema),
  lines: optional(z.array(z.string())).transform((value) => value ?? []),
  severity: optional(z.string()),
});

const KNOWN = ['id', 'type', 'title', 'text', 'validFrom', 'validTo', 'lines', 'severity'] as const;

export function parseNotices(body: unknown): Parsed<Notice> {
  return parseEach('addInfo', 'infos', envelopeList(body, 'infos'), wireNoticeSchema, (wire, raw) => ({
    id: wire.id,
    type: wire.type,
    title: wire.title,
    text: wire.text,
    ...(wire.validFrom === undefined ? {} : { validFrom: wire.validFrom }),
    ...(wire.validTo === undefined ? {} : { validTo: wire.validTo }),
    lines: wire.lines,
    ...(wire.severity === undefined ? {} : { severity: wire.severity }),
    attrs: restOf(raw, KNOWN),
  }));
}
