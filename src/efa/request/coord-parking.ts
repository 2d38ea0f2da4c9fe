import { z } from 'zod';
import { ParamList, type Params } from '../params.js';
import { bboxSchema, parseOptions } from './common.js';
import { coordInfoCommonShape, writeCommon } from './coord-filters.js';

/**
 * A parking search alone: the parking box of efa-api.md (parkingSearchMethod=BB, parkingBB,
 * parkingBBLU/RL) without an object-type filter, so the answer holds parking objects rather than
 * every object of a box. Real-time occupancy needs parkObjInfo=1 with parkObjInfoRealtime=1.
 */
export const coordInfoParkingSchema = z
  .strictObject({
    parkingBBox: bboxSchema,
    parkingObjectType: coordInfoCommonShape.parkingObjectType,
    parkObjInfo: coordInfoCommonShape.parkObjInfo,
    parkObjInfoRealtime: coordInfoCommonShape.parkObjInfoRealtime,
    max: coordInfoCommonShape.max,
  })
  .refine((o) => o.parkObjInfoRealtime !== true || o.parkObjInfo === true, { message: 'requires parkObjInfo', path: ['parkObjInfoRealtime'] });

export type CoordInfoParkingOptions = z.input<typeof coordInfoParkingSchema>;

export function buildCoordInfoParking(input: CoordInfoParkingOptions): Params {
  const options = parseOptions(coordInfoParkingSchema, input, 'coordInfo');
  const list = new ParamList();
  writeCommon(list, { ...options, fltrParkObj: undefined, vehAtStation: undefined });
  return list.toParams();
}
