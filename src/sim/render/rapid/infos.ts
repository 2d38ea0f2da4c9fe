/**
 * rapidJSON AddInfo, shaped like the TfNSW sample and the published schema's `info`:
 * `infos.current[]` with `timestamps.validity[]` (UTC), subtitle, content, urlText, `priority` and
 * `affected.lines[]`/`affected.stops[]`, plus the `infos.affected` aggregate. The TfNSW sample's
 * `infoLinks[]` is left out: the schema's `info` allows no field beyond its own.
 *
 * The neutral result does not say whether a notice is current or past, so every notice is written
 * under `current` and `historic` stays empty; a `filterPublicationStatus=history` answer therefore
 * lists its notices under `current` too.
 */
import type { AddInfoResult } from '../../ops/addinfo.js';
import type { Notice } from '../../types.js';
import { wireStopIds } from '../stop-ids.js';
import { rapidStopIds } from './locations.js';

/**
 * The published schema's dateTime is UTC (`...Z`). A notice's days are written as the start and
 * end of those days in UTC, so the day a client reads off a window is the notice's own.
 */
const OFFSET = 'Z';

/** A notice's line key is `network:line:supplement:direction`; TfNSW ids end in an empty project. */
const affectedLine = (key: string): Record<string, unknown> => ({ id: `${key}:` });
/** A stop as TfNSW's `affected.stops[]`: its id, whether that is the global one, and both ids in properties. */
const affectedStop = (id: string, globalIds: ReadonlyMap<string, string>): Record<string, unknown> => {
  const { isGlobalId, properties } = rapidStopIds(wireStopIds({ id, globalId: globalIds.get(id) }));
  return { id, isGlobalId, type: 'stop', properties };
};

function info(n: Notice, globalIds: ReadonlyMap<string, string>): Record<string, unknown> {
  const validity = { from: `${n.validFrom}T00:00:00${OFFSET}`, to: `${n.validTo}T23:59:59${OFFSET}` };
  const url = `https://sim.invalid/alerts/${encodeURIComponent(n.id)}`;
  return {
    type: n.type,
    id: n.id,
    version: 1,
    priority: n.severity,
    timestamps: {
      creation: `${n.publishedAt}T08:00:00${OFFSET}`,
      lastModification: `${n.publishedAt}T08:00:00${OFFSET}`,
      availability: { ...validity },
      validity: [validity],
    },
    subtitle: n.title,
    content: n.text,
    url,
    urlText: n.title,
    properties: {
      source: { id: n.sourceSystem, name: n.sourceSystem, type: 'EFA' },
      providerCode: n.providerCode,
      smsText: n.title,
    },
    affected: {
      lines: n.lines.map(affectedLine),
      ...(n.stops.length > 0 ? { stops: n.stops.map((id) => affectedStop(id, globalIds)) } : {}),
    },
  };
}

export function rapidInfos(r: AddInfoResult): Record<string, unknown> {
  const lines = [...new Set(r.infos.flatMap((n) => n.lines))];
  const stops = [...new Set(r.infos.flatMap((n) => n.stops))];
  return {
    current: r.infos.map((n) => info(n, r.stopGlobalIds)),
    historic: [],
    affected: { lines: lines.map(affectedLine), stops: stops.map((id) => affectedStop(id, r.stopGlobalIds)) },
  };
}
