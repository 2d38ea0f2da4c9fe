import { z } from 'zod';
import { boxCorners } from '../format/coord.js';
import { formatDeadline } from '../format/date.js';
import { indexedEach, underscored } from '../format/indexed.js';
import { bitmask, joinColon } from '../format/lists.js';
import type { ParamList } from '../params.js';
import { ENGINE_TYPES, LOCATION_TYPES, SHARING_VEHICLE_KINDS } from './vehicle-detail.js';
import { bboxSchema, calendarDateSchema, idPartSchema, listItemSchema, motIdSchema, switchSchema } from './common.js';

/** Object types of CoordInfo's `type_<i>`. */
export const OBJECT_TYPES = [
  'ANY', 'BUS_POINT', 'ENTRANCE', 'GIS_AREA', 'GIS_POINT', 'INFRASTRUCTURE',
  'LINE', 'POI_AREA', 'POI_POINT', 'STOP', 'STREET',
] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

const filterBlockShape = {
  type: z.enum(OBJECT_TYPES),
  inclMOT: z.array(motIdSchema).min(1).optional(),
  exclMOT: z.array(motIdSchema).min(1).optional(),
  exclLayers: z.array(idPartSchema).min(1).optional(),
  inclDrawClasses: z.array(listItemSchema).min(1).optional(),
  inclPOIH: z.array(listItemSchema).min(1).optional(),
};

/** Box searches take no radius: the spec allows `radius_<i>` for circle searches only. */
export const boxFilterSchema = z.strictObject(filterBlockShape);
export const circleFilterSchema = z.strictObject({ ...filterBlockShape, radius: z.int().positive().optional() });

type CircleFilter = z.output<typeof circleFilterSchema>;

export const PARKING_OBJECT_TYPES = {
  multiStorey: 1,
  carPark: 2,
  singleSpace: 4,
  zone: 8,
  chargingPoint: 32,
} as const;
export type ParkingObjectType = keyof typeof PARKING_OBJECT_TYPES;
const parkingObjectTypeNames = Object.keys(PARKING_OBJECT_TYPES) as [ParkingObjectType, ...ParkingObjectType[]];

const inclusionSchema = z.enum(['INCLUDE', 'EXCLUDE', 'EXCLUSIVE']);

/** Options shared by circle and box searches: tuning, stop/POI switches and parking filters. */
export const coordInfoCommonShape = {
  max: z.int().positive().optional(),
  deadline: calendarDateSchema.optional(),
  mapName: z.string().min(1).optional(),
  purpose: z.int().optional(),
  fltrParkObj: switchSchema,
  parkingBBox: bboxSchema.optional(),
  /** `'all'` sends -1; otherwise the named kinds are ORed into the bitmask. */
  parkingObjectType: z.union([z.literal('all'), z.array(z.enum(parkingObjectTypeNames)).min(1)]).optional(),
  parkingCharge: z.enum(['free', 'pay']).optional(),
  parkingBikeRideInclusion: inclusionSchema.optional(),
  parkingParkRideInclusion: inclusionSchema.optional(),
  parkObjInfo: switchSchema,
  parkObjInfoRealtime: switchSchema,
  /**
   * The sharing-vehicle filters of efa-api.md, sent with a box or circle search. Our reading of the
   * undocumented API: vehSF narrows the answer to sharing vehicles of those kinds.
   */
  vehSF: z.array(z.enum(SHARING_VEHICLE_KINDS)).min(1).optional(),
  vehEngineType: z.array(z.enum(ENGINE_TYPES)).min(1).optional(),
  vehLocType: z.array(z.enum(LOCATION_TYPES)).min(1).optional(),
  vehAtStation: switchSchema,
};

type CommonOptions = z.output<z.ZodObject<typeof coordInfoCommonShape>>;

/** Real-time occupancy is an extension of the parking details; the server ignores it alone. */
export function requireParkObjInfo(options: CommonOptions, ctx: z.RefinementCtx): void {
  if (options.parkObjInfoRealtime === true && options.parkObjInfo !== true) {
    ctx.addIssue({ code: 'custom', path: ['parkObjInfoRealtime'], message: 'requires parkObjInfo' });
  }
}

export function writeFilterBlocks(list: ParamList, filters: readonly CircleFilter[]): void {
  list.add('inclFilter', 1);
  filters.forEach((filter, i) => {
    list
      .add(underscored('type', i), filter.type)
      .add(underscored('radius', i), filter.radius)
      .add(underscored('inclMOT', i), filter.inclMOT && joinColon(filter.inclMOT, `filters[${i}].inclMOT`))
      .add(underscored('exclMOT', i), filter.exclMOT && joinColon(filter.exclMOT, `filters[${i}].exclMOT`))
      .add(underscored('exclLayers', i), filter.exclLayers && joinColon(filter.exclLayers, `filters[${i}].exclLayers`))
      .add(
        underscored('inclDrawClasses', i),
        filter.inclDrawClasses && joinColon(filter.inclDrawClasses, `filters[${i}].inclDrawClasses`),
      )
      .add(underscored('inclPOIH', i), filter.inclPOIH && joinColon(filter.inclPOIH, `filters[${i}].inclPOIH`));
  });
}

export function writeCommon(list: ParamList, options: CommonOptions): void {
  list
    .add('max', options.max)
    .add('deadline', options.deadline && formatDeadline(options.deadline))
    .add('mapName', options.mapName)
    .add('purpose', options.purpose)
    .flag('fltrParkObj', options.fltrParkObj);
  if (options.parkingBBox !== undefined) {
    const corners = boxCorners(options.parkingBBox, 'parkingBBox');
    list
      .add('parkingSearchMethod', 'BB')
      .add('parkingBB', 1)
      .add('parkingBBLU', corners.upperLeft)
      .add('parkingBBRL', corners.lowerRight);
  }
  const types = options.parkingObjectType;
  list
    .add('parkingObjectType', types === undefined ? undefined : types === 'all' ? -1 : bitmask(PARKING_OBJECT_TYPES, types))
    .add('parkingCharge', options.parkingCharge)
    .add('parkingBikeRideInclusion', options.parkingBikeRideInclusion)
    .add('parkingParkRideInclusion', options.parkingParkRideInclusion)
    .flag('parkObjInfo', options.parkObjInfo)
    .flag('parkObjInfoRealtime', options.parkObjInfoRealtime)
    .flag('vehAtStation', options.vehAtStation)
    .addEach('vehEngineType', options.vehEngineType)
    .addAll(indexedEach('vehLocType', options.vehLocType ?? []))
    .addEach('vehSF', options.vehSF);
}
