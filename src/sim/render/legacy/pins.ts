import type { CoordResult, PinOut } from '../../ops/coord.js';
import { STOP_GLOBAL_ID, wireStopIds } from '../stop-ids.js';
import { coords, isScalar, pair, PARAMETERS, text } from './common.js';

/** Top-level pin keys of the MVV sample; extras never overwrite them. */
const RESERVED = new Set(['desc', 'addDesc', 'type', 'id', 'layer', 'distance', 'stateless', 'coords', 'attrs', 'infos']);

function stopAttrs(out: PinOut, globalId: string): { name: string; value: string }[] {
  const mots = out.motTypes ?? [];
  return [
    pair(STOP_GLOBAL_ID, globalId),
    pair('STOP_NAME_WITH_PLACE', out.pin.name),
    ...(mots[0] === undefined ? [] : [pair('STOP_MAJOR_MEANS', String(mots[0]))]),
    pair('STOP_MEANS_LIST', mots.join(',')),
  ];
}

function pin(out: PinOut): Record<string, unknown> {
  const { pin: p } = out;
  // A stop's `id` is its local number; the global id goes to attrs (a stop without one sends its id there).
  const stop = p.type === 'STOP' && p.id !== undefined ? wireStopIds({ id: p.id, globalId: p.globalId }) : undefined;
  const id = stop?.local ?? p.id ?? '';
  const attrs = stop ? stopAttrs(out, stop.global ?? stop.id) : [];
  const nested: Record<string, unknown> = {};
  // Scalars go to the name/value `attrs` list as strings; structures (realtime, specification) stay objects.
  for (const [key, value] of Object.entries(out.extra)) {
    if (isScalar(value)) attrs.push(pair(key, text(value)));
    else if (!RESERVED.has(key)) nested[key] = value;
  }
  return {
    desc: p.name, addDesc: '', type: p.type, id, layer: `SYS-${p.type.replace('_', '-')}`,
    distance: String(Math.round(out.distanceM)), stateless: id, coords: coords(p.lon, p.lat), attrs, infos: null, ...nested,
  };
}

/** CoordInfo as the MVV sample: `parameters`, then `pins[]` with desc, coords "x,y" and `attrs`. */
export function renderPins(r: CoordResult): unknown {
  return { parameters: PARAMETERS, pins: r.pins.map(pin) };
}
