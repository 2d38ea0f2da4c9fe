import { z } from 'zod';
import type { Notice } from '../../records.js';
import { isObject, parseEach, RecordProblemError, restOf, type ParseContext, type Parsed } from '../common.js';
import { idSchema } from '../fields.js';
import { itdDay, itdInstant } from './dates.js';
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

interface Validity {
  from?: string;
  to?: string;
  /** The start and end as instants (ISO, UTC): itdDate + itdTime in the deployment's zone. */
  fromAt?: string;
  toAt?: string;
}

/**
 * One period or a list of them; the notice is valid from the earliest start to the latest end. A
 * period without an end (all -1) leaves the notice open-ended, whatever the other periods say. The
 * days are the server's calendar days; the instants exist where the period has times and the zone is known.
 */
function validity(value: unknown, zone: string | undefined): Validity {
  const periods = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const v: Validity = {};
  let openEnd = false;
  periods.forEach((period, p) => {
    if (!isObject(period)) throw new RecordProblemError(['validityPeriod', p], 'expected an object');
    const fromPath = ['validityPeriod', p, 'itdDateTime_From'];
    const toPath = ['validityPeriod', p, 'itdDateTime_To'];
    const start = itdDay(period['itdDateTime_From'], fromPath);
    const end = itdDay(period['itdDateTime_To'], toPath);
    const startAt = itdInstant(period['itdDateTime_From'], fromPath, zone);
    const endAt = itdInstant(period['itdDateTime_To'], toPath, zone);
    if (start !== undefined && (v.from === undefined || start < v.from)) v.from = start;
    if (startAt !== undefined && (v.fromAt === undefined || startAt < v.fromAt)) v.fromAt = startAt;
    if (end === undefined) openEnd = true;
    else if (v.to === undefined || end > v.to) v.to = end;
    if (endAt !== undefined && (v.toAt === undefined || endAt > v.toAt)) v.toAt = endAt;
  });
  if (openEnd) {
    delete v.to;
    delete v.toAt;
  }
  return v;
}

/**
 * A concerned line's key, `network:line:supplement:dir` (plus `:project` when given), composed from
 * its `diva` as for serving lines; else its own id or stateless key, else its number.
 */
function lineKey(line: unknown, i: number): string {
  if (!isObject(line)) throw new RecordProblemError(['concernedLines', i], 'expected an object');
  const diva = isObject(line['diva']) ? line['diva'] : {};
  const [network, number, supplement, dir] = [diva['network'], diva['line'], diva['supplement'], diva['dir']];
  if (typeof network === 'string' && network !== '' && typeof number === 'string' && number !== '' && typeof supplement === 'string' && typeof dir === 'string') {
    const project = present(diva['project']);
    return [network, number, supplement, dir, ...(project === undefined ? [] : [project])].join(':');
  }
  const key = present(line['id']) ?? present(line['stateless']) ?? present(diva['stateless']) ?? present(line['number']);
  if (key === undefined) throw new RecordProblemError(['concernedLines', i], 'no line key (diva, id, stateless or number)');
  return key;
}

const KNOWN = ['infoID', 'type', 'priority', 'validityPeriod', 'concernedLines'] as const;

function toNotice(wire: WireNotice, raw: Record<string, unknown>, zone: string | undefined): Notice {
  const type = present(wire.type) ?? present(nameValues(wire.paramList).get('infoType'));
  if (type === undefined) throw new RecordProblemError(['type'], 'no notice type (type or paramList infoType)');
  const link = wire.infoLink ?? {};
  const text = wire.infoText ?? {};
  const { from, to, fromAt, toAt } = validity(wire.validityPeriod, zone);
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
    attrs: {
      ...restOf(raw, KNOWN),
      ...(fromAt === undefined ? {} : { validFromAt: fromAt }),
      ...(toAt === undefined ? {} : { validToAt: toAt }),
      ...repairs.attrs(),
    },
  };
}

export function parseLegacyNotices(body: unknown, context: ParseContext = {}): Parsed<Notice> {
  const root = envelope(body, 'additionalInformation');
  const holder = root['travelInformations'];
  // `travelInformations` holds `travelInformation`: a list, one object (a single notice), or nothing.
  const inner = isObject(holder) ? holder['travelInformation'] : holder;
  const items = (isObject(inner) ? [inner] : legacyList(inner, 'travelInformation', ['additionalInformation', 'travelInformations']));
  return parseEach('addInfo', 'additionalInformation.travelInformations.travelInformation', items, wireNoticeSchema, (wire, raw) => toNotice(wire, raw, context.timeZone));
}
