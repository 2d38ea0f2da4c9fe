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
// The parts of an EFA line id (network:line:supplement:direction:project), as the filters take them.
const networkText = 'The network, the first part of the EFA line id.';
const lineText = 'The line, the second part of the EFA line id.';
const supplementText = 'The supplement, the third part of the EFA line id.';
const directionText = 'The direction, the fourth part of the EFA line id.';

/** Options named after the AddInfo filters. Every array of a repeatable filter is sent once per value. */
export const addInfoSchema = z
  .strictObject({
    filterDateValid: z.array(calendarDateSchema).min(1).optional().describe('Notices valid on these days (YYYY-MM-DD, sent as DD-MM-YYYY).'),
    /** Sends the day in component mode (`filterDateValidComponentsActive=1` + day, month, year). */
    filterDateValidComponents: calendarDateSchema.optional().describe('Notices valid on this day, sent in component mode (day, month, year apart).'),
    filterPublicationStatus: z.enum(['current', 'history']).optional().describe('current: active notices; history: historical ones.'),
    filterValidIntervalStart: calendarDateSchema.optional().describe('Notices valid from this day on, inclusive (YYYY-MM-DD).'),
    filterValidIntervalEnd: calendarDateSchema.optional().describe('Notices valid up to this day, inclusive (YYYY-MM-DD).'),
    filterOMC: z.array(listItemSchema).min(1).optional().describe('Notices of these municipalities (OMC keys).'),
    filterOMC_PlaceID: z
      .array(z.strictObject({ omc: listItemSchema.describe('The municipality key (OMC).'), placeId: listItemSchema.describe('The place id within it.') }))
      .min(1)
      .optional()
      .describe('Notices of these places.'),
    filterLineNumberIntervalStart: lineNumberSchema.optional().describe('Line numbers from this one on (1-999).'),
    filterLineNumberIntervalEnd: lineNumberSchema.optional().describe('Line numbers up to this one (1-999).'),
    filterMOTType: z.array(motIdSchema).min(1).optional().describe('Notices of these means of transport (EFA MOT ids).'),
    filterPNLineDir: z
      .array(z.strictObject({ network: idPartSchema.describe(networkText), line: idPartSchema.describe(lineText), direction: colonPartSchema.describe(directionText) }))
      .min(1)
      .optional()
      .describe('Notices of these lines in one direction.'),
    filterPNLineSub: z
      .array(z.strictObject({ network: idPartSchema.describe(networkText), line: idPartSchema.describe(lineText), supplement: colonPartSchema.describe(supplementText) }))
      .min(1)
      .optional()
      .describe('Notices of these lines with a supplement.'),
    itdLPxx_selLine: textList.describe('Notices of these lines (DIVA line numbers).'),
    itdLPxx_selOperator: textList.describe('Notices of these operators (operator codes).'),
    itdLPxx_selStop: textList.describe('Notices of these stops (stop ids).'),
    line: z
      .strictObject({
        network: idPartSchema.describe(networkText),
        line: idPartSchema.describe(lineText),
        supplement: colonPartSchema.describe(supplementText),
        direction: colonPartSchema.describe(directionText),
        project: colonPartSchema.describe('The timetable project.'),
      })
      .optional()
      .describe('One line, by the five parts of its EFA id.'),
    /** With `line`: notices for the stops that line passes. */
    passedStops: switchSchema.describe('With line: the notices of the stops that line passes.'),
    filterInfoID: textList.describe('These notices, by id.'),
    filterInfoType: z.array(z.enum(INFO_TYPES)).min(1).optional().describe('Notices of these types (stopInfo, lineBlocking, …).'),
    filterProviderCode: textList.describe('Notices by these authors (provider codes).'),
    filterSourceSystemName: textList.describe('Notices from these source systems.'),
    hideBannerInfo: switchSchema.describe('Leave banner notices out (hideBannerInfo=1).'),
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
