import { z } from 'zod';

/**
 * Wire-level field schemas of the json dialect: tolerant where the spec is vague (IDs as numbers,
 * `null` for "absent", motTypes as a comma list), strict for coordinates.
 */

/** `null` and absent mean the same in EFA answers. */
export function optional<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/**
 * Ids are opaque: the API passes a verified id unchanged into follow-up requests, so it is kept
 * exactly as sent, surrounding spaces included (TfNSW GIS ids end in one: `coord:4889102:3757273:GDAV: `).
 * Numbers become their decimal text. Only a blank id is refused: it identifies nothing.
 */
const opaqueText = z.string().refine((value) => value.trim() !== '', { message: 'blank id' });

export const idSchema = z.union([opaqueText, z.int()]).transform(String);

/** POIs may carry no ID, or an empty (or blank) one, which means the same. */
export const optionalIdSchema = optional(z.union([z.string(), z.int()]))
  .transform((value) => (value === undefined || String(value).trim() === '' ? undefined : String(value)));

/** A record's kind as the dialect writes it, kept as sent; blank is refused. */
export const kindSchema = z.string().refine((value) => value.trim() !== '', { message: 'blank type' });

/**
 * The json dialect's `coord` object: two numbers. Whether they are WGS84 is judged with the whole
 * answer, as in every dialect (plausibleLonLat, parseEach): a stray one is a reject, an answer of
 * them is the server's grid (exit 2).
 */
export const coordObjectSchema = z.object({ lat: z.number(), lon: z.number() });

const integerText = z.string().trim().regex(/^\d+$/, 'expected an integer').transform(Number);

export const nonNegativeIntSchema = z.union([z.int().nonnegative(), integerText]);

export const numberSchema = z.union([
  z.number(),
  z.string().trim().regex(/^-?\d+(\.\d+)?$/, 'expected a number').transform(Number),
]);

/** "1,2,3", "" or absent (→ []), or an array of IDs. */
export const motTypesSchema = optional(z.union([z.string(), z.array(z.union([z.int(), z.string()]))])).transform(
  (value, ctx): number[] => {
    const tokens = value === undefined ? [] : typeof value === 'string' ? value.split(',') : value.map(String);
    const ids: number[] = [];
    for (const token of tokens) {
      const text = token.trim();
      if (text === '') continue;
      if (!/^\d+$/.test(text)) {
        ctx.addIssue({ code: 'custom', message: `means-of-transport ID "${text}" is not a non-negative integer` });
        return z.NEVER;
      }
      ids.push(Number(text));
    }
    return ids;
  },
);

/** `YYYY-MM-DD`; a full timestamp is cut to its day, since notices are valid per day. */
export const isoDayTextSchema = z
  .string()
  .trim()
  .transform((value) => /^(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec(value)?.[1] ?? value)
  .pipe(z.iso.date());
