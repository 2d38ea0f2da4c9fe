import { z } from 'zod';

/**
 * Wire-level field schemas of the json dialect: tolerant where the spec is vague (IDs as numbers,
 * `null` for "absent", motTypes as a comma list), strict for coordinates.
 */

/** `null` and absent mean the same in EFA answers. */
export function optional<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((value) => value ?? undefined);
}

export const idSchema = z.union([z.string().trim().min(1), z.int()]).transform(String);

/** POIs may carry no ID, or an empty one. */
export const optionalIdSchema = optional(z.union([z.string().trim(), z.int()]))
  .transform((value) => (value === undefined || value === '' ? undefined : String(value)));

export const coordObjectSchema = z.object({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
});

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
