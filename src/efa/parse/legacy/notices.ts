import { z } from 'zod';
import type { Notice } from '../../records.js';
import { isObject, parseEach, RecordProblem, restOf, type Parsed } from '../common.js';
import { idSchema } from '../fields.js';
import { itdDay } from './dates.js';
import { TextRepairs } from '../../text/mojibake.js';
import { envelope, legacyList, nameValues, present } from './values.js';

/**
 * legacy: AddInfo's `additionalInformation.travelInformations.travelInformation[]`. NO real body of
 * this answer was available: the shape follows the description (infoID, type, priority,
 * validityPeriod with itdDateTime_From/To, infoLink, concernedLines) and a third-party parser of
 * Linz AG's answers (rolandzeiner/linz-linien-austria alerts.py), so it is tolerant where that is cheap.
 */
const wireInfoLinkSchema = z.looseObject({
  infoLinkText: z.string().nullish(),
  subtitle: z.string().nullish(),
  content: z.string().nullish(),
});

const wireNoticeSchema = z.looseObject({
  infoID: idSchema,
  type: z.string().nullish(),
  priority: z.string().nullish(),
  infoLink: wireInfoLinkSchema.nullish(),
  infoText: wireInfoLinkSchema.nullish(),
  paramList: z.unknown().optional(),
  validityPeriod: z.unknown().optional(),
  concernedLines: z.unknown().optional(),
});

type WireNotice = z.output<typeof wireNoticeSchema>;

const firstText = (...values: (string | null | undefined)[]): string => values.find((v) => typeof v === 'string' && v.trim() !== '') ?? '';

/**
 * One period or a list of them; the notice is valid from the earliest start to the latest end. A
 * period without an end (all -1) leaves the notice open-ended, whatever the other periods say.
 */
function validity(value: unknown): { from?: string; to?: string } {
  const periods = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  let from: string | undefined;
  let to: string | undefined;
  let openEnd = false;
  periods.forEach((period, p) => {
    if (!isObject(period)) throw new RecordProblem(['validityPeriod', p], 'expected an object');
    const start = itdDay(period['itdDateTime_From'], ['validityPeriod', p, 'itdDateTime_From']);
    const end = itdDay(period['itdDateTime_To'], ['validityPeriod', p, 'itdDateTime_To']);
    if (start !== undefined && (from === undefined || start < from)) from = start;
    if (end === undefined) openEnd = true;
    else if (to === undefined || end > to) to = end;
  });
  if (openEnd) to = undefined;
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/**
 * A concerned line's key, `network:line:supplement:dir` (plus `:project` when given), composed from
 * its `diva` as for serving lines; else its own id or stateless key, else its number.
 */
function lineKey(line: unknown, i: number): string {
  if (!isObject(line)) throw new RecordProblem(['concernedLines', i], 'expected an object');
  const diva = isObject(line['diva']) ? line['diva'] : {};
  const [network, number, supplement, dir] = [diva['network'], diva['line'], diva['supplement'], diva['dir']];
  if (typeof network === 'string' && network !== '' && typeof number === 'string' && number !== '' && typeof supplement === 'string' && typeof dir === 'string') {
    const project = present(diva['project']);
    return [network, number, supplement, dir, ...(project === undefined ? [] : [project])].join(':');
  }
  const key = present(line['id']) ?? present(line['stateless']) ?? present(diva['stateless']) ?? present(line['number']);
  if (key === undefined) throw new RecordProblem(['concernedLines', i], 'no line key (diva, id, stateless or number)');
  return key;
}

const KNOWN = ['infoID', 'type', 'priority', 'validityPeriod', 'concernedLines'] as const;

function toNotice(wire: WireNotice, raw: Record<string, unknown>): Notice {
  const type = present(wire.type) ?? present(nameValues(wire.paramList).get('infoType'));
  if (type === undefined) throw new RecordProblem(['type'], 'no notice type (type or paramList infoType)');
  const link = wire.infoLink ?? {};
  const text = wire.infoText ?? {};
  const { from, to } = validity(wire.validityPeriod);
  const severity = present(wire.priority);
  // Title and text are free text, repaired for mojibake (counted in attrs); the id is kept as sent.
  const repairs = new TextRepairs();
  return {
    id: wire.infoID,
    type,
    title: repairs.text(firstText(link.subtitle, link.infoLinkText, text.subtitle)),
    text: repairs.text(firstText(link.content, text.content)),
    ...(from === undefined ? {} : { validFrom: from }),
    ...(to === undefined ? {} : { validTo: to }),
    lines: legacyList(wire.concernedLines, 'line', ['concernedLines']).map(lineKey),
    ...(severity === undefined ? {} : { severity }),
    attrs: { ...restOf(raw, KNOWN), ...repairs.attrs() },
  };
}

export function parseLegacyNotices(body: unknown): Parsed<Notice> {
  const root = envelope(body, 'additionalInformation');
  const holder = root['travelInformations'];
  // `travelInformations` holds `travelInformation`: a list, one object (a single notice), or nothing.
  const inner = isObject(holder) ? holder['travelInformation'] : holder;
  const items = (isObject(inner) ? [inner] : legacyList(inner, 'travelInformation', ['additionalInformation', 'travelInformations']));
  return parseEach('addInfo', 'additionalInformation.travelInformations.travelInformation', items, wireNoticeSchema, toNotice);
}
