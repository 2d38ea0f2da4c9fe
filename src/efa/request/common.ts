import { z } from 'zod';
import { EfaParameterError, formatPath } from '../errors.js';
import type { Operation } from '../operations.js';

export const lonSchema = z.number().min(-180).max(180);
export const latSchema = z.number().min(-90).max(90);

export const coordSchema = z.strictObject({ lon: lonSchema, lat: latSchema });

/** [minLon, minLat, maxLon, maxLat]; an inverted box is an error, not a silently swapped one. */
export const bboxSchema = z
  .tuple([lonSchema, latSchema, lonSchema, latSchema])
  .refine(([minLon, , maxLon]) => minLon <= maxLon, { message: 'minLon is greater than maxLon' })
  .refine(([, minLat, , maxLat]) => minLat <= maxLat, { message: 'minLat is greater than maxLat' });

/** A day as `YYYY-MM-DD` or a Date (read in local time, see format/date.ts). */
export const calendarDateSchema = z.union([z.date(), z.iso.date()]);

/** One part of a colon-joined value: a colon inside would shift the parts after it. */
export const colonPartSchema = z.string().regex(/^[^:]*$/, 'must not contain ":"');
export const idPartSchema = colonPartSchema.min(1);

/** IDs in colon lists (`inclMOT_0=1:2`) may be given as numbers or strings. */
export const listItemSchema = z.union([z.int().nonnegative(), idPartSchema]);

export const motIdSchema = z.int().min(0).max(30);

export const percentSchema = z.int().min(0).max(100);

/** Switches that EFA reads as `1` or absent. */
export const switchSchema = z.boolean().optional();

function parameterOf(issue: z.core.$ZodIssue): string {
  const path = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return issue.path.length === 0 ? keys : `${path}.${keys}`;
  }
  return path;
}

/** Validates builder options; the error names the option so a bad job file is easy to fix. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, operation: Operation): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new EfaParameterError('(options)', 'invalid options', operation);
  throw new EfaParameterError(parameterOf(issue), issue.message, operation);
}
