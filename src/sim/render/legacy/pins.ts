import type { CoordResult, PinOut } from '../../ops/coord.js';
import { coords, isScalar, localStopId, pair, PARAMETERS, text } from './common.js';

/** Top-level pin keys of the MVV sample; extras never overwrite them. */
const RESERVED = new Set(['desc', 'addDesc', 'type', 'id', 'layer', 'distance', 'stateless', 'coords', 'attrs', 'infos']);

function stopAttrs(out: PinOut): { name: string; value: string }[] {
  if (out.pin.type !== 'STOP') return [];
  const mots = out.motTypes ?? [];
  return [
    pair('STOP_GLOBAL_ID', out.pin.id ?? ''),
    pair('STOP_NAME_WITH_PLACE', out.pin.name),
    ...(mots[0] === undefined ? [] : [pair('STOP_MAJOR_MEANS', String(mots[0]))]),
    pair('STOP_MEANS_LIST', mots.join(',')),
  ];
}

function pin(out: PinOut): Record<string, unknown> {
  const { pin: p } = out;
  const id = p.type === 'STOP' && p.id !== undefined ? localStopId(p.id) : (p.id ?? '');
  const attrs = stopAttrs(out);
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
