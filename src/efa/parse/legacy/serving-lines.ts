import { z } from 'zod';
import type { ServingLine } from '../../records.js';
import { isObject, parseEach, restOf, type Parsed } from '../common.js';
import { nonNegativeIntSchema } from '../fields.js';
import { TextRepairs } from '../../text/mojibake.js';
import { envelope, legacyList, present } from './values.js';

/** The DIVA key parts of a line, as legacy writes them (`supplement` is often a single space). */
const wireDivaSchema = z.looseObject({
  network: z.string().optional(),
  line: z.string().optional(),
  supplement: z.string().optional(),
  dir: z.string().optional(),
  project: z.string().optional(),
  stateless: z.string().optional(),
});

const wireModeSchema = z
  .looseObject({
    name: z.string(),
    number: z.union([z.string(), z.int()]).transform(String),
    type: nonNegativeIntSchema.optional(),
    motType: nonNegativeIntSchema.optional(),
    destination: z.string().nullish(),
    diva: wireDivaSchema.nullish(),
  })
  .refine((mode) => mode.type !== undefined || mode.motType !== undefined, { message: 'no MOT (mode.type or motType)', path: ['type'] });

/** legacy: ServingLines' `servingLines.lines[]`, each a `{ mode: {...}, index }` entry. */
const wireLineSchema = z.looseObject({ mode: wireModeSchema });

type WireDiva = z.output<typeof wireDivaSchema>;

/**
 * The canonical line id `network:line:supplement:dir:project` (what rapidJSON sends as `id`),
 * composed from the parts; the server's own `stateless` only when a part is missing. The
 * supplement is kept as it is: " " is a real value and part of the key.
 */
export function lineIdOf(diva: WireDiva | null | undefined): string | undefined {
  if (!diva) return undefined;
  const { network, line, supplement, dir, project } = diva;
  if (network && line && supplement !== undefined && dir && project) {
    return `${network}:${line}:${supplement}:${dir}:${project}`;
  }
  return present(diva.stateless);
}

export function parseLegacyServingLines(body: unknown): Parsed<ServingLine> {
  const lines = envelope(body, 'servingLines')['lines'];
  const items = legacyList(lines, 'line', ['servingLines', 'lines']);
  return parseEach('servingLines', 'servingLines.lines', items, wireLineSchema, (wire, raw) => {
    const mode = wire.mode;
    const id = lineIdOf(mode.diva);
    const rawMode = isObject(raw['mode']) ? raw['mode'] : {};
    // Ids, names and numbers as sent; only the direction, free text, is repaired for mojibake.
    const repairs = new TextRepairs();
    return {
      ...(id === undefined ? {} : { id }),
      name: repairs.name(mode.name),
      number: mode.number,
      mot: mode.type ?? mode.motType ?? 0,
      direction: repairs.text(mode.destination ?? ''),
      attrs: { ...restOf(raw, ['mode']), ...restOf(rawMode, ['name', 'number', 'type', 'motType', 'destination']), ...repairs.attrs() },
    };
  });
}
