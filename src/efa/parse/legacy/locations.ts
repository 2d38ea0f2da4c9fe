import { z } from 'zod';
import type { Location } from '../../records.js';
import { parseEach, restOf, type Parsed } from '../common.js';
import { numberSchema } from '../fields.js';
import { envelope, legacyList, lonLatText, present, repairRecord } from './values.js';

const wireRefSchema = z.looseObject({
  id: z.unknown().optional(),
  gid: z.unknown().optional(),
  coords: z.string().nullish(),
});

/** legacy: StopFinder's `stopFinder.points` entries. `best` is "1"/"0", `quality` a number as text. */
const wirePointSchema = z.looseObject({
  name: z.string(),
  anyType: z.string().trim().min(1),
  stateless: z.unknown().optional(),
  quality: numberSchema,
  best: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  ref: wireRefSchema,
});

const KNOWN = ['name', 'anyType', 'quality', 'best'] as const;

/**
 * The id other requests accept and other dialects send: the global id (`ref.gid`, de:09174:7073)
 * where there is one, else the `stateless` handle (a stop's local id, or poiID:/streetID: keys),
 * else `ref.id` unless it is the "-1" of localities.
 */
function idOf(wire: z.output<typeof wirePointSchema>): string | undefined {
  return present(wire.ref.gid) ?? present(wire.stateless) ?? present(wire.ref.id, ['', '-1']);
}

export function parseLegacyLocations(body: unknown): Parsed<Location> {
  const points = envelope(body, 'stopFinder')['points'];
  const items = legacyList(points, 'point', ['stopFinder', 'points']).map(repairRecord);
  const schema = wirePointSchema.refine((wire) => idOf(wire) !== undefined, { message: 'no usable id (ref.gid, stateless or ref.id)' });
  return parseEach('stopFinder', ['stopFinder', 'points'], items, schema, (wire, raw, path) => {
    const coords = present(wire.ref.coords ?? undefined);
    return {
      id: idOf(wire) ?? '',
      name: wire.name,
      type: wire.anyType,
      isBest: wire.best === '1' || wire.best === 1 || wire.best === true,
      matchQuality: wire.quality,
      ...(coords === undefined ? {} : { coord: lonLatText(coords, [...path, 'ref', 'coords']) }),
      attrs: restOf(raw, KNOWN),
    };
  });
}
