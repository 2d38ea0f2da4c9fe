import { z } from 'zod';
import type { Location } from '../../records.js';
import { TextRepairs } from '../../text/mojibake.js';
import { parseEach, restOf, type Parsed } from '../common.js';
import { kindSchema, motTypesSchema, numberSchema } from '../fields.js';
import { globalIdOf, recordAttributes } from '../global-id.js';
import { envelope, legacyList, lonLatText, present } from './values.js';

const wireRefSchema = z.looseObject({
  id: z.unknown().optional(),
  gid: z.unknown().optional(),
  coords: z.string().nullish(),
});

/** legacy: StopFinder's `stopFinder.points` entries. `best` is "1"/"0", `quality` a number as text. */
const wirePointSchema = z.looseObject({
  name: z.string(),
  anyType: kindSchema,
  stateless: z.unknown().optional(),
  quality: numberSchema,
  best: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  ref: wireRefSchema,
  // A stop's means of transport, "2,4,5,11" (VOR sample).
  modes: motTypesSchema,
});

const KNOWN = ['name', 'anyType', 'quality', 'best'] as const;

/**
 * The id other requests accept and other dialects send: the global id (`ref.gid`, de:09174:7073)
 * where there is one, else the `stateless` handle (a stop's local id, or poiID:/streetID: keys),
 * else `ref.id` unless it is the "-1" of localities. Kept exactly as sent: the server wants it back
 * unchanged (an MVV poiID contains the double-encoded "fÃ¼r" of its name, and must keep it).
 */
function idOf(wire: z.output<typeof wirePointSchema>): string | undefined {
  return present(wire.ref.gid) ?? present(wire.stateless) ?? present(wire.ref.id, ['', '-1']);
}

export function parseLegacyLocations(body: unknown): Parsed<Location> {
  const points = envelope(body, 'stopFinder')['points'];
  const items = legacyList(points, 'point', ['stopFinder', 'points']);
  const schema = wirePointSchema.refine((wire) => idOf(wire) !== undefined, { message: 'no usable id (ref.gid, stateless or ref.id)' });
  return parseEach('stopFinder', ['stopFinder', 'points'], items, schema, (wire, raw, path) => {
    const coords = present(wire.ref.coords ?? undefined);
    const id = idOf(wire) ?? '';
    const globalId = globalIdOf({ id, attributes: recordAttributes(raw), field: wire.ref.gid });
    const repairs = new TextRepairs();
    const hasModes = raw['modes'] !== undefined && raw['modes'] !== null && raw['modes'] !== '';
    return {
      id,
      name: repairs.name(wire.name),
      type: wire.anyType,
      isBest: wire.best === '1' || wire.best === 1 || wire.best === true,
      matchQuality: wire.quality,
      ...(coords === undefined ? {} : { coord: lonLatText(coords, [...path, 'ref', 'coords']) }),
      ...(hasModes ? { motTypes: [...new Set(wire.modes)].sort((a, b) => a - b) } : {}),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: { ...restOf(raw, KNOWN), ...repairs.attrs() },
    };
  });
}
