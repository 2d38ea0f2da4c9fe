import { z } from 'zod';
import type { Notice } from '../../records.js';
import { isObject, parseEach, restOf, ShapeMismatch, type Parsed } from '../common.js';
import { idSchema, isoDayTextSchema, kindSchema, optional } from '../fields.js';
import { TextRepairs } from './common.js';

/**
 * rapidJSON AddInfo: `infos.current[]` and `infos.historic[]` (TfNSW sample). Title and text are
 * `subtitle`/`content` at the top of a notice, or only inside `infoLinks[]` (historic notices of
 * the sample have no top-level text); `priority` (veryLow ... veryHigh) is the severity.
 */
const textSchema = optional(z.string());

const wireLinkSchema = z.looseObject({ subtitle: textSchema, urlText: textSchema, content: textSchema });

/** A window's day as written in its own offset: `2025-06-14T10:41:00Z` is 2025-06-14. */
const windowSchema = z.looseObject({ from: optional(isoDayTextSchema), to: optional(isoDayTextSchema) });

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

/** The earliest start and latest end of all validity windows; ISO days compare as strings. */
function validity(windows: readonly { from?: string | undefined; to?: string | undefined }[]) {
  const froms = windows.flatMap((w) => (w.from === undefined ? [] : [w.from])).sort();
  const tos = windows.flatMap((w) => (w.to === undefined ? [] : [w.to])).sort();
  const validFrom = froms[0];
  const validTo = tos[tos.length - 1];
  return { ...(validFrom === undefined ? {} : { validFrom }), ...(validTo === undefined ? {} : { validTo }) };
}

const KNOWN = ['id', 'type', 'priority', 'subtitle', 'content', 'affected'] as const;

function parseList(items: readonly unknown[], publication: Publication): Parsed<Notice> {
  return parseEach('addInfo', ['infos', publication], items, wireNoticeSchema, (wire, raw) => {
    const repairs = new TextRepairs();
    const link = wire.infoLinks[0];
    const title = wire.subtitle ?? link?.subtitle ?? wire.urlText ?? link?.urlText ?? '';
    const text = wire.content ?? link?.content ?? '';
    const lines = wire.affected?.lines?.flatMap((line) => (line.id === undefined ? [] : [line.id])) ?? [];
    const stops = wire.affected?.stops?.flatMap((stop) => (stop.id === undefined ? [] : [stop.id])) ?? [];
    return {
      id: wire.id,
      type: wire.type,
      title: repairs.text(title),
      text: repairs.text(text),
      ...validity(wire.timestamps?.validity ?? []),
      lines: unique(lines.map(noticeLineId)),
      ...(wire.priority === undefined ? {} : { severity: wire.priority }),
      // `affected` is reduced to its ids: its lines carry whole trip lists (hundreds of kB).
      attrs: {
        ...restOf(raw, KNOWN),
        publication,
        ...(stops.length === 0 ? {} : { stops: unique(stops) }),
        ...repairs.attrs(),
      },
    };
  });
}

/** Both lists, current first; `infos` as a list (the json shape) or without either list is a shape error. */
export function parseRapidNotices(body: unknown): Parsed<Notice> {
  if (!isObject(body)) throw new ShapeMismatch([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const infos = body['infos'];
  if (!isObject(infos)) {
    throw new ShapeMismatch(['infos'], infos === undefined ? 'missing' : 'expected an object with current[] and historic[]');
  }
  const current = infos['current'];
  const historic = infos['historic'];
  if (!Array.isArray(current) && !Array.isArray(historic)) throw new ShapeMismatch(['infos', 'current'], 'missing');
  for (const [key, value] of [['current', current], ['historic', historic]] as const) {
    if (value !== undefined && value !== null && !Array.isArray(value)) {
      throw new ShapeMismatch(['infos', key], `expected an array, got ${typeof value}`);
    }
  }
  const parts = [parseList(Array.isArray(current) ? current : [], 'current'), parseList(Array.isArray(historic) ? historic : [], 'historic')];
  return { records: parts.flatMap((p) => p.records), rejects: parts.flatMap((p) => p.rejects) };
}
