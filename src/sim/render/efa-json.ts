/**
 * The response dialect of efa-api.md (`outputFormat=JSON`). Operations produce neutral results;
 * this file alone decides field names and shapes, so further dialects (legacy EFA JSON,
 * rapidJSON) can be added beside it without touching query semantics.
 */
import type { CoordResult } from '../ops/coord.js';
import type { StopFinderResult } from '../ops/stopfinder.js';
import type { ServingLinesResult } from '../ops/serving-lines.js';
import type { AddInfoResult } from '../ops/addinfo.js';
import type { OpAreaResult } from '../ops/oparea.js';
import { STOP_GLOBAL_ID } from './stop-ids.js';

export interface Dialect {
  coord(r: CoordResult): unknown;
  stopFinder(r: StopFinderResult): unknown;
  servingLines(r: ServingLinesResult): unknown;
  addInfo(r: AddInfoResult): unknown;
  opArea(r: OpAreaResult): unknown;
  error(status: number, message: string): unknown;
  /** The body's bytes and Content-Type; JSON (UTF-8) unless the dialect writes another format. */
  encode?(body: unknown): { body: string | Buffer; contentType: string };
}

const RESERVED = new Set(['type', 'id', 'name', 'coord', 'motTypes', 'attrs']);

/**
 * efa-api.md shows no global-id field; a stop's global id goes where legacy servers put it, a
 * name/value `attrs` list (fields beyond the documented ones are allowed there).
 */
const globalIdAttrs = (id: string | undefined, globalId: string | undefined): { attrs?: { name: string; value: string }[] } =>
  // Where the id is the global id already, the plain dialect has nothing to add (as in efa-api.md).
  globalId === undefined || globalId === id ? {} : { attrs: [{ name: STOP_GLOBAL_ID, value: globalId }] };

export const efaJson: Dialect = {
  coord: (r) => ({
    pins: r.pins.map(({ pin, motTypes, distanceM, extra }) => {
      const out: Record<string, unknown> = { type: pin.type };
      if (pin.id !== undefined) out.id = pin.id;
      out.name = pin.name;
      out.coord = { lat: pin.lat, lon: pin.lon };
      if (pin.type === 'STOP') out.motTypes = (motTypes ?? []).join(',');
      out.distance = Math.round(distanceM);
      for (const [k, v] of Object.entries(extra)) if (!RESERVED.has(k)) out[k] = v;
      if (pin.type === 'STOP') Object.assign(out, globalIdAttrs(pin.id, pin.globalId));
      return out;
    }),
  }),
  stopFinder: (r) => ({
    locations: r.locations.map((l) => ({
      id: l.stop.id, name: l.stop.name, type: 'stop', isBest: l.isBest, matchQuality: l.matchQuality,
      coord: { lat: l.stop.lat, lon: l.stop.lon }, motTypes: l.stop.motTypes.join(','),
      ...(l.distanceM !== undefined ? { distance: Math.round(l.distanceM) } : {}),
      ...globalIdAttrs(l.stop.id, l.stop.globalId),
    })),
  }),
  servingLines: (r) => ({
    servingLines: r.lines.map((l) => ({
      name: l.name, number: l.number, mot: l.mot, direction: l.direction, id: l.id, network: l.network, operator: l.operator,
    })),
  }),
  addInfo: (r) => ({
    infos: r.infos.map((n) => ({
      id: n.id, type: n.type, title: n.title, text: n.text, validFrom: n.validFrom, validTo: n.validTo, lines: [...n.lines],
      severity: n.severity, providerCode: n.providerCode, sourceSystem: n.sourceSystem, publishedAt: n.publishedAt,
      ...(n.stops.length > 0 ? { stops: [...n.stops] } : {}),
    })),
  }),
  opArea: (r) => ({
    providers: r.providers.map((p) => ({
      id: p.id, name: p.name, vehicleType: p.vehicleType,
      areas: p.areas.map((a) => ({ id: a.id, name: a.name, ...(r.withGeometry ? { polygon: a.polygon.map(([la, lo]) => [la, lo]) } : {}) })),
    })),
  }),
  error: (status, message) => ({ error: { status, message } }),
};
