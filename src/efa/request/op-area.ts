import { z } from 'zod';
import { formatCoordRadius } from '../format/coord.js';
import { suffixed } from '../format/indexed.js';
import { ParamList, type Params } from '../params.js';
import { coordSchema, parseOptions, switchSchema } from './common.js';

export const OPAREA_VEHICLE_KINDS = ['BIKE', 'CAR', 'MOTORCYCLE'] as const;

/**
 * One `vehPId<i>`, optionally narrowed to one of its areas with `opAreaId<i>`; the area must share
 * its provider's index, so the pair is one entry here. Two areas of one provider are two entries.
 */
const providerSelectionSchema = z.strictObject({
  vehPId: z.string().trim().min(1),
  opAreaId: z.string().trim().min(1).optional(),
});

const commonShape = {
  providers: z.array(providerSelectionSchema).optional(),
  vehSF: z.union([z.enum(OPAREA_VEHICLE_KINDS), z.array(z.enum(OPAREA_VEHICLE_KINDS))]).optional(),
  operatingZoneGeometry: switchSchema,
};

export const opAreaSchema = z.discriminatedUnion('opareaSM', [
  z.strictObject({ opareaSM: z.literal('ALL'), ...commonShape }),
  z.strictObject({
    opareaSM: z.literal('RADIAL'),
    /** Centre and optional radius in metres; the server's default radius is 500 m. */
    coordRadius: z.strictObject({ coord: coordSchema, radiusM: z.int().positive().optional() }),
    ...commonShape,
  }),
]);

export type OpAreaOptions = z.input<typeof opAreaSchema>;

export function buildOpArea(input: OpAreaOptions): Params {
  const o = parseOptions(opAreaSchema, input, 'opArea');
  const list = new ParamList().add('opareaSM', o.opareaSM);
  if (o.opareaSM === 'RADIAL') {
    list.add('coordRadius', formatCoordRadius(o.coordRadius.coord, o.coordRadius.radiusM)).add('opASR', 1);
  }
  (o.providers ?? []).forEach((provider, i) => {
    list.add(suffixed('vehPId', i), provider.vehPId).add(suffixed('opAreaId', i), provider.opAreaId);
  });
  const kinds = o.vehSF === undefined ? [] : Array.isArray(o.vehSF) ? o.vehSF : [o.vehSF];
  return list.addEach('vehSF', kinds).flag('operatingZoneGeometry', o.operatingZoneGeometry).toParams();
}
