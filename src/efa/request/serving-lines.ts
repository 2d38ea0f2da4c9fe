import { z } from 'zod';
import { bitmask } from '../format/lists.js';
import { ParamList, type Params } from '../params.js';
import { motIdSchema, parseOptions } from './common.js';

/** Line-type flags of `lineReqType`; none selected sends 0, which the server reads as "all". */
export const LINE_REQ_TYPES = { STT: 2, TTB: 4, ROB: 8, StationTT: 16 } as const;
export type LineReqType = keyof typeof LINE_REQ_TYPES;
const lineReqTypeNames = Object.keys(LINE_REQ_TYPES) as [LineReqType, ...LineReqType[]];

const commonShape = {
  lineReqType: z.array(z.enum(lineReqTypeNames)).optional(),
  /** Means of transport to exclude, sent as `exclMOT_<id>=1`: steadier than `lineReqType` alone. */
  exclMOT: z.array(motIdSchema).optional(),
};

export const servingLinesAtStopSchema = z.strictObject({ stopId: z.string().trim().min(1), ...commonShape });
export const servingLinesByNameSchema = z.strictObject({ lineName: z.string().trim().min(1), ...commonShape });

export type ServingLinesAtStopOptions = z.input<typeof servingLinesAtStopSchema>;
export type ServingLinesByNameOptions = z.input<typeof servingLinesByNameSchema>;

type Common = z.output<z.ZodObject<typeof commonShape>>;

function writeCommon(list: ParamList, options: Common): Params {
  list.add('lineReqType', bitmask(LINE_REQ_TYPES, options.lineReqType ?? []));
  for (const mot of options.exclMOT ?? []) list.add(`exclMOT_${mot}`, 1);
  return list.toParams();
}

/** `mode=odv`: the lines serving one stop, addressed by its verified StopFinder ID. */
export function buildServingLinesAtStop(input: ServingLinesAtStopOptions): Params {
  const options = parseOptions(servingLinesAtStopSchema, input, 'servingLines');
  const list = new ParamList().add('mode', 'odv').add('type_sl', 'any').add('name_sl', options.stopId);
  return writeCommon(list, options);
}

/** `mode=line`: lines by their public designation. */
export function buildServingLinesByName(input: ServingLinesByNameOptions): Params {
  const options = parseOptions(servingLinesByNameSchema, input, 'servingLines');
  const list = new ParamList().add('mode', 'line').add('lineName', options.lineName);
  return writeCommon(list, options);
}
