import { z } from 'zod';
import type { Notice } from '../../records.js';
import { instantOfText } from '../../../util/time-zone.js';
import { isObject, parseEach, restOf, ShapeMismatchError, type ParseContext, type Parsed } from '../common.js';
import { idSchema, isoDayTextSchema, kindSchema, optional } from '../fields.js';
import { TextRepairs } from './common.js';

/**
 * rapidJSON AddInfo: `infos.current[]` and `infos.historic[]` (TfNSW sample). Title and text are
 * `subtitle`/`content` at the top of a notice, or only inside `infoLinks[]` (historic notices of
 * the sample have no top-level text); `priority` (veryLow ... veryHigh) is the severity.
 */
const textSchema = optional(z.string());

const wireLinkSchema = z.looseObject({ subtitle: textSchema, urlText: textSchema, content: textSchema });

/** A window's bounds as sent: checked to start with an ISO day, read by `bound`. */
const boundSchema = optional(z.string().trim().refine((value) => isoDayTextSchema.safeParse(value).success, 'expected an ISO date or date-time'));
const windowSchema = z.looseObject({ from: boundSchema, to: boundSchema });

const wireNoticeSchema = z.looseObject({
  id: idSchema,
  type: kindSchema,
  priority: textSchema,
  subtitle: textSchema,
  urlText: textSchema,
  content: textSchema,
  infoLinks: optional(z.array(wireLinkSchema)).transform((value) => value ?? []),
  timestamps: optional(z.looseObject({ validity: optional(z.array(windowSchema)) })),
  affected: optional(
    z.looseObject({
      lines: optional(z.array(z.looseObject({ id: optional(idSchema) }))),
      stops: optional(z.array(z.looseObject({ id: optional(idSchema) }))),
    }),
  ),
});

/** Which list a notice came from; historic ones are returned too, marked, so a sweep can choose. */
export type Publication = 'current' | 'historic';

/**
 * A notice names the lines it affects as `network:line:supplement:direction`, the json dialect's
 * form (TfNSW sends `nsw:020T2: :R:` with an empty project); the rest of the id is cut.
 */
export function noticeLineId(id: string): string {
  const parts = id.split(':');
  return parts.length > 4 ? parts.slice(0, 4).join(':') : id;
}

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/**
 * A window bound's day and instant. The day is the one written, in the bound's own offset
 * (`2025-06-14T10:41:00Z` is 2025-06-14), as every dialect's notice days are the days the answer
 * names (the simulator writes a notice's days as UTC days so that all dialects agree). The instant:
 * with its offset as written, or without one as wall time in the deployment's zone.
 */
function bound(text: string, zone: string | undefined): { day: string; at: string | undefined } {
  const at = instantOfText(text, zone) ?? undefined;
  return { day: isoDayTextSchema.parse(text) as string, at: at?.toISOString() };
}

/** The earliest start and latest end of all validity windows; ISO days and UTC instants compare as strings. */
function validity(windows: readonly { from?: string | undefined; to?: string | undefined }[], zone: string | undefined) {
  const froms = windows.flatMap((w) => (w.from === undefined ? [] : [bound(w.from, zone)]));
  const tos = windows.flatMap((w) => (w.to === undefined ? [] : [bound(w.to, zone)]));
  const validFrom = froms.map((b) => b.day).sort()[0];
  const validTo = tos.map((b) => b.day).sort().at(-1);
  const validFromAt = froms.flatMap((b) => (b.at === undefined ? [] : [b.at])).sort()[0];
  const validToAt = tos.flatMap((b) => (b.at === undefined ? [] : [b.at])).sort().at(-1);
  return {
    days: { ...(validFrom === undefined ? {} : { validFrom }), ...(validTo === undefined ? {} : { validTo }) },
    instants: { ...(validFromAt === undefined ? {} : { validFromAt }), ...(validToAt === undefined ? {} : { validToAt }) },
  };
}

const KNOWN = ['id', 'type', 'priority', 'subtitle', 'content', 'affected'] as const;

function parseList(items: readonly unknown[], publication: Publication, zone: string | undefined): Parsed<Notice> {
  return parseEach('addInfo', ['infos', publication], items, wireNoticeSchema, (wire, raw) => {
    const repairs = new TextRepairs();
    const link = wire.infoLinks[0];
    const title = wire.subtitle ?? link?.subtitle ?? wire.urlText ?? link?.urlText ?? '';
    const text = wire.content ?? link?.content ?? '';
    const lines = wire.affected?.lines?.flatMap((line) => (line.id === undefined ? [] : [line.id])) ?? [];
    const stops = wire.affected?.stops?.flatMap((stop) => (stop.id === undefined ? [] : [stop.id])) ?? [];
    const valid = validity(wire.timestamps?.validity ?? [], zone);
    return {
      id: wire.id,
      type: wire.type,
      title: repairs.text(title),
      text: repairs.text(text),
      ...valid.days,
      lines: unique(lines.map(noticeLineId)),
      ...(wire.priority === undefined ? {} : { severity: wire.priority }),
      // `affected` is reduced to its ids: its lines carry whole trip lists (hundreds of kB).
      attrs: {
        ...restOf(raw, KNOWN),
        publication,
        ...valid.instants,
        ...(stops.length === 0 ? {} : { stops: unique(stops) }),
        ...repairs.attrs(),
      },
    };
  });
}

/** Both lists, current first; `infos` as a list (the json shape) or without either list is a shape error. */
export function parseRapidNotices(body: unknown, context: ParseContext = {}): Parsed<Notice> {
  if (!isObject(body)) throw new ShapeMismatchError([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const infos = body['infos'];
  if (!isObject(infos)) {
    throw new ShapeMismatchError(['infos'], infos === undefined ? 'missing' : 'expected an object with current[] and historic[]');
  }
  const current = infos['current'];
  const historic = infos['historic'];
  if (!Array.isArray(current) && !Array.isArray(historic)) throw new ShapeMismatchError(['infos', 'current'], 'missing');
  for (const [key, value] of [['current', current], ['historic', historic]] as const) {
    if (value !== undefined && value !== null && !Array.isArray(value)) {
      throw new ShapeMismatchError(['infos', key], `expected an array, got ${typeof value}`);
    }
  }
  const parts = [
    parseList(Array.isArray(current) ? current : [], 'current', context.timeZone),
    parseList(Array.isArray(historic) ? historic : [], 'historic', context.timeZone),
  ];
  return { records: parts.flatMap((p) => p.records), rejects: parts.flatMap((p) => p.rejects) };
}
