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

export interface Dialect {
  coord(r: CoordResult): unknown;
  stopFinder(r: StopFinderResult): unknown;
  servingLines(r: ServingLinesResult): unknown;
  addInfo(r: AddInfoResult): unknown;
  opArea(r: OpAreaResult): unknown;
  error(status: number, message: string): unknown;
}

const RESERVED = new Set(['type', 'id', 'name', 'coord', 'motTypes']);

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
      return out;
    }),
  }),
  stopFinder: (r) => ({
    locations: r.locations.map((l) => ({
      id: l.stop.id, name: l.stop.name, type: 'stop', isBest: l.isBest, matchQuality: l.matchQuality,
      coord: { lat: l.stop.lat, lon: l.stop.lon }, motTypes: l.stop.motTypes.join(','),
      ...(l.distanceM !== undefined ? { distance: Math.round(l.distanceM) } : {}),
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
