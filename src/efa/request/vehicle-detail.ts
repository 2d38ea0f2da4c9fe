import { z } from 'zod';
import { indexedEach } from '../format/indexed.js';
import { joinColon } from '../format/lists.js';
import { ParamList, type Params } from '../params.js';
import { idPartSchema, parseOptions, switchSchema } from './common.js';

export const ENGINE_TYPES = ['COMBUSTION', 'ELECTRIC', 'HYBRID'] as const;
export const LOCATION_TYPES = ['CLASSIC', 'FREEFLOATER', 'STATION', 'POSITION'] as const;
export const SHARING_VEHICLE_KINDS = ['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI'] as const;

/** One sharing vehicle, addressed by `SharingRefId=<ID>:<OperatorID>:<OpAreaID>`. */
export const vehicleDetailSchema = z.strictObject({
  sharingRef: z.strictObject({ id: idPartSchema, operatorId: idPartSchema, opAreaId: idPartSchema }),
  vehAtStation: switchSchema,
  vehSpec: switchSchema,
  vehAvail: switchSchema,
  vehEngineType: z.array(z.enum(ENGINE_TYPES)).optional(),
  vehLocType: z.array(z.enum(LOCATION_TYPES)).optional(),
  vehSF: z.array(z.enum(SHARING_VEHICLE_KINDS)).optional(),
});

export type VehicleDetailOptions = z.input<typeof vehicleDetailSchema>;

export function buildVehicleDetail(input: VehicleDetailOptions): Params {
  const options = parseOptions(vehicleDetailSchema, input, 'coordInfo');
  const ref = options.sharingRef;
  return new ParamList()
    .add('coordReqType', 'VEHICLEDETAIL')
    .add('vehDetail', 1)
    .add('vehSM', 'ID')
    .add('SharingRefId', joinColon([ref.id, ref.operatorId, ref.opAreaId], 'sharingRef'))
    .flag('vehAtStation', options.vehAtStation)
    .flag('vehSpec', options.vehSpec)
    .flag('vehAvail', options.vehAvail)
    .addEach('vehEngineType', options.vehEngineType)
    .addAll(indexedEach('vehLocType', options.vehLocType ?? []))
    .addEach('vehSF', options.vehSF)
    .toParams();
}
