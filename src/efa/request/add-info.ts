import { z } from 'zod';
import { dateComponents, dayKey, formatAddInfoDate } from '../format/date.js';
import { joinColon } from '../format/lists.js';
import { ParamList, type Params } from '../params.js';
import {
  calendarDateSchema,
  colonPartSchema,
  idPartSchema,
  listItemSchema,
  motIdSchema,
  parseOptions,
  switchSchema,
} from './common.js';

export const INFO_TYPES = [
  'stopInfo', 'stopBlocking', 'lineInfo', 'lineBlocking',
  'routeInfo', 'routeBlocking', 'generalInfo', 'bannerInfo',
] as const;
export type InfoType = (typeof INFO_TYPES)[number];

const lineNumberSchema = z.int().min(1).max(999);
const textList = z.array(z.string().trim().min(1)).min(1).optional();

/** Options named after the AddInfo filters. Every array of a repeatable filter is sent once per value. */
export const addInfoSchema = z
  .strictObject({
    filterDateValid: z.array(calendarDateSchema).min(1).optional(),
    /** Sends the day in component mode (`filterDateValidComponentsActive=1` + day, month, year). */
    filterDateValidComponents: calendarDateSchema.optional(),
    filterPublicationStatus: z.enum(['current', 'history']).optional(),
    filterValidIntervalStart: calendarDateSchema.optional(),
    filterValidIntervalEnd: calendarDateSchema.optional(),
    filterOMC: z.array(listItemSchema).min(1).optional(),
    filterOMC_PlaceID: z.array(z.strictObject({ omc: listItemSchema, placeId: listItemSchema })).min(1).optional(),
    filterLineNumberIntervalStart: lineNumberSchema.optional(),
    filterLineNumberIntervalEnd: lineNumberSchema.optional(),
    filterMOTType: z.array(motIdSchema).min(1).optional(),
    filterPNLineDir: z
      .array(z.strictObject({ network: idPartSchema, line: idPartSchema, direction: colonPartSchema }))
      .min(1)
      .optional(),
    filterPNLineSub: z
      .array(z.strictObject({ network: idPartSchema, line: idPartSchema, supplement: colonPartSchema }))
      .min(1)
      .optional(),
    itdLPxx_selLine: textList,
    itdLPxx_selOperator: textList,
    itdLPxx_selStop: textList,
    line: z
      .strictObject({
        network: idPartSchema,
        line: idPartSchema,
        supplement: colonPartSchema,
        direction: colonPartSchema,
        project: colonPartSchema,
      })
      .optional(),
    /** With `line`: notices for the stops that line passes. */
    passedStops: switchSchema,
    filterInfoID: textList,
    filterInfoType: z.array(z.enum(INFO_TYPES)).min(1).optional(),
    filterProviderCode: textList,
    filterSourceSystemName: textList,
    hideBannerInfo: switchSchema,
  })
  .superRefine((o, ctx) => {
    if (o.passedStops === true && o.line === undefined) {
      ctx.addIssue({ code: 'custom', path: ['passedStops'], message: 'requires line' });
    }
    const { filterValidIntervalStart: start, filterValidIntervalEnd: end } = o;
    if (start !== undefined && end !== undefined && dayKey(start) > dayKey(end)) {
      ctx.addIssue({ code: 'custom', path: ['filterValidIntervalEnd'], message: 'is before filterValidIntervalStart' });
    }
    const { filterLineNumberIntervalStart: from, filterLineNumberIntervalEnd: to } = o;
    if (from !== undefined && to !== undefined && from > to) {
      ctx.addIssue({ code: 'custom', path: ['filterLineNumberIntervalEnd'], message: 'is below filterLineNumberIntervalStart' });
    }
  });

export type AddInfoOptions = z.input<typeof addInfoSchema>;

export function buildAddInfo(input: AddInfoOptions = {}): Params {
  const o = parseOptions(addInfoSchema, input, 'addInfo');
  const list = new ParamList().addEach('filterDateValid', (o.filterDateValid ?? []).map((d) => formatAddInfoDate(d)));
  if (o.filterDateValidComponents !== undefined) {
    const parts = dateComponents(o.filterDateValidComponents, 'filterDateValidComponents');
    list
      .add('filterDateValidComponentsActive', 1)
      .add('filterDateValidDay', parts.day)
      .add('filterDateValidMonth', parts.month)
      .add('filterDateValidYear', parts.year);
  }
  list
    .add('filterPublicationStatus', o.filterPublicationStatus)
    .add('filterValidIntervalStart', o.filterValidIntervalStart && formatAddInfoDate(o.filterValidIntervalStart))
    .add('filterValidIntervalEnd', o.filterValidIntervalEnd && formatAddInfoDate(o.filterValidIntervalEnd))
    .add('filterOMC', o.filterOMC && joinColon(o.filterOMC, 'filterOMC'))
    .addEach(
      'filterOMC_PlaceID',
      (o.filterOMC_PlaceID ?? []).map((p) => joinColon([p.omc, p.placeId], 'filterOMC_PlaceID')),
    )
    .add('filterLineNumberIntervalStart', o.filterLineNumberIntervalStart)
    .add('filterLineNumberIntervalEnd', o.filterLineNumberIntervalEnd)
    .addEach('filterMOTType', o.filterMOTType)
    .addEach(
      'filterPNLineDir',
      (o.filterPNLineDir ?? []).map((l) => joinColon([l.network, l.line, l.direction], 'filterPNLineDir')),
    )
    .addEach(
      'filterPNLineSub',
      (o.filterPNLineSub ?? []).map((l) => joinColon([l.network, l.line, l.supplement], 'filterPNLineSub')),
    )
    .addEach('itdLPxx_selLine', o.itdLPxx_selLine)
    .addEach('itdLPxx_selOperator', o.itdLPxx_selOperator)
    .addEach('itdLPxx_selStop', o.itdLPxx_selStop);
  if (o.line !== undefined) {
    const { network, line, supplement, direction, project } = o.line;
    list.add('line', joinColon([network, line, supplement, direction, project], 'line')).flag('passedStops', o.passedStops);
  }
  return list
    .addEach('filterInfoID', o.filterInfoID)
    .addEach('filterInfoType', o.filterInfoType)
    .addEach('filterProviderCode', o.filterProviderCode)
    .addEach('filterSourceSystemName', o.filterSourceSystemName)
    .flag('hideBannerInfo', o.hideBannerInfo)
    .toParams();
}
