import { z } from 'zod';
import type { Notice } from '../../records.js';
import { parseEach, RecordProblemError, restOf, type ParseContext, type Parsed } from '../common.js';
import { idSchema } from '../fields.js';
import { itdDay, itdInstant } from '../legacy/dates.js';
import { descend, element, list, present, requestElement, textOf } from './values.js';

/**
 * xml: AddInfo's `itdAddInfoRequest/itdAdditionalTravelInformations/itdAdditionalTravelInformation`
 * (verified on the STA answer): `infoID`, `type`, `priority` attributes; `validityPeriod` with two
 * `itdDateTime` (from, to); `infoLink` per language with `infoText/subtitle` and `content`;
 * `concernedLines/line` with `line`, `supplement`, `direction` and, for the key's network,
 * `network` where sent or else `partialNet` (the STA lines carry only partialNet: inferred).
 */
const wireNoticeSchema = z.looseObject({
  infoID: idSchema,
  type: z.string(),
  priority: z.string().optional(),
});

const KNOWN = ['infoID', 'type', 'priority', 'validityPeriod', 'concernedLines', 'infoLink'] as const;

interface Validity {
  from?: string;
  to?: string;
  fromAt?: string;
  toAt?: string;
}

/** The earliest start and the latest end of the periods; a period with no end leaves it open. */
function validity(raw: Record<string, unknown>, zone: string | undefined): Validity {
  const v: Validity = {};
  let openEnd = false;
  list(raw['validityPeriod']).forEach((period, p) => {
    const [start, end] = list(element(period)['itdDateTime']);
    const path = ['validityPeriod', p, 'itdDateTime'];
    const from = itdDay(start, [...path, 0]);
    const to = itdDay(end, [...path, 1]);
    const fromAt = itdInstant(start, [...path, 0], zone);
    const toAt = itdInstant(end, [...path, 1], zone);
    if (from !== undefined && (v.from === undefined || from < v.from)) v.from = from;
    if (fromAt !== undefined && (v.fromAt === undefined || fromAt < v.fromAt)) v.fromAt = fromAt;
    if (to === undefined) openEnd = true;
    else if (v.to === undefined || to > v.to) v.to = to;
    if (toAt !== undefined && (v.toAt === undefined || toAt > v.toAt)) v.toAt = toAt;
  });
  if (openEnd) {
    delete v.to;
    delete v.toAt;
  }
  return v;
}

function lineKey(entry: unknown, i: number): string {
  const line = element(entry);
  const network = present(line['network']) ?? present(line['partialNet']);
  const [number, supplement, dir] = [present(line['line']), line['supplement'], present(line['direction'])];
  if (network !== undefined && number !== undefined && typeof supplement === 'string' && dir !== undefined) {
    const project = present(line['project']);
    return [network, number, supplement, dir, ...(project === undefined ? [] : [project])].join(':');
  }
  const key = present(line['stateless']) ?? present(line['number']);
  if (key === undefined) throw new RecordProblemError(['concernedLines', 'line', i], 'no line key (network/partialNet, line, supplement, direction; or stateless, number)');
  return key;
}

export function parseXmlNotices(body: unknown, context: ParseContext = {}): Parsed<Notice> {
  const at = ['itdRequest', 'itdAddInfoRequest'];
  const holder = descend(requestElement(body, 'itdAddInfoRequest'), at, ['itdAdditionalTravelInformations']);
  const items = list(holder['itdAdditionalTravelInformation']);
  return parseEach('addInfo', [...at, 'itdAdditionalTravelInformations', 'itdAdditionalTravelInformation'], items, wireNoticeSchema, (wire, raw) => {
    // The first infoLink is in the request's language; the others are translations, kept in attrs.
    const link = element(list(raw['infoLink'])[0]);
    const info = element(link['infoText']);
    const firstText = (...values: (string | undefined)[]): string => values.find((t) => t !== undefined && t.trim() !== '') ?? '';
    const { from, to, fromAt, toAt } = validity(raw, context.timeZone);
    const severity = present(wire.priority);
    return {
      id: wire.infoID,
      type: wire.type,
      title: firstText(textOf(info['subtitle']), textOf(link['infoLinkText'])),
      text: firstText(textOf(info['content'])),
      ...(from === undefined ? {} : { validFrom: from }),
      ...(to === undefined ? {} : { validTo: to }),
      lines: list(element(raw['concernedLines'])['line']).map(lineKey),
      ...(severity === undefined ? {} : { severity }),
      attrs: {
        ...restOf(raw, KNOWN),
        ...(fromAt === undefined ? {} : { validFromAt: fromAt }),
        ...(toAt === undefined ? {} : { validToAt: toAt }),
      },
    };
  });
}
