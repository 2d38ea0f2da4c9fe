import { z } from 'zod';
import { formatCoord } from '../format/coord.js';
import { motBitmask } from '../format/lists.js';
import { ParamList, type Params } from '../params.js';
import { coordSchema, motIdSchema, parseOptions, percentSchema, switchSchema } from './common.js';

export const RANKING_METHODS = ['DISTANCEFROMCENTER', 'BESTCOVER', 'PREFIXCOUNT', 'PREFIXRATIO'] as const;

const bitmaskSchema = z.int().nonnegative();
const regionSchema = z.union([z.string().min(1), z.int()]);

/**
 * Options named after the EFA parameters with the `_sf` usage suffix dropped. Input is text or
 * an ID (`type: 'any'`) or a coordinate (`type: 'coord'`).
 */
const optionalShape = {
  anyMaxSizeHitList: z.int().positive().optional(),
  anyResSort: z.string().min(1).optional(),
  anySigWhenPerfectNoOtherMatches: switchSchema,
  locationInfoActive: switchSchema,
  useHouseNumberList: switchSchema,
  useLocalityMainStop: switchSchema,
  doNotSearchForStops: switchSchema,
  prMinQu: percentSchema.optional(),
  /** Object-type bitmask; the spec does not say what its bits mean, so it is passed through. */
  anyObjFilter: bitmaskSchema.optional(),
  anyOmc: regionSchema.optional(),
  regionID: regionSchema.optional(),
  tryFurtherAnyWithoutLoc: switchSchema,
  /** Reference point for `rMethod: 'DISTANCEFROMCENTER'`. */
  coord: coordSchema.optional(),
  objPrefAl: bitmaskSchema.optional(),
  objPrefAm: bitmaskSchema.optional(),
  /** Means-of-transport IDs to prefer; sent as the bitmask `sum(1 << id)` ([1, 2, 3, 4] → 30). */
  prefStModeAm: z.array(motIdSchema).min(1).optional(),
  regPrefAl: regionSchema.optional(),
  regPrefAm: regionSchema.optional(),
  relInf: percentSchema.optional(),
  rMethod: z.enum(RANKING_METHODS).optional(),
};

export const stopFinderSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('any'), name: z.string().trim().min(1), ...optionalShape }),
  z.strictObject({ type: z.literal('coord'), name: coordSchema, ...optionalShape }),
]);

export type StopFinderOptions = z.input<typeof stopFinderSchema>;

export function buildStopFinder(input: StopFinderOptions): Params {
  const o = parseOptions(stopFinderSchema, input, 'stopFinder');
  return new ParamList()
    .add('name_sf', o.type === 'any' ? o.name : formatCoord(o.name, 'name'))
    .add('type_sf', o.type)
    .add('anyMaxSizeHitList', o.anyMaxSizeHitList)
    .add('anyResSort_sf', o.anyResSort)
    .flag('anySigWhenPerfectNoOtherMatches', o.anySigWhenPerfectNoOtherMatches)
    .flag('locationInfoActive', o.locationInfoActive)
    .flag('useHouseNumberList_sf', o.useHouseNumberList)
    .flag('useLocalityMainStop', o.useLocalityMainStop)
    .flag('doNotSearchForStops_sf', o.doNotSearchForStops)
    .add('prMinQu', o.prMinQu)
    .add('anyObjFilter_sf', o.anyObjFilter)
    .add('anyOmc_sf', o.anyOmc)
    .add('regionID_sf', o.regionID)
    .flag('tryFurtherAnyWithoutLoc', o.tryFurtherAnyWithoutLoc)
    .add('coord', o.coord && formatCoord(o.coord))
    .add('objPrefAl', o.objPrefAl)
    .add('objPrefAm', o.objPrefAm)
    .add('prefStModeAm', o.prefStModeAm && motBitmask(o.prefStModeAm, 'prefStModeAm'))
    .add('regPrefAl', o.regPrefAl)
    .add('regPrefAm', o.regPrefAm)
    .add('relInf', o.relInf)
    .add('rMethod', o.rMethod)
    .toParams();
}
