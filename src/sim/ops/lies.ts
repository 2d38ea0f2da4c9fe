/** The CoordInfo lies of the fault spec (`fullbox`, `silentcap`, `empty`): answers a broken or hostile deployment gives. */
import type { FaultSpec } from '../faults.js';
import { PIN_TYPES, type PinType } from '../types.js';
import type { CoordQuery, CoordResult, PinOut } from './coord.js';

/** What `fullbox` fills an answer to when the request sets no `max` (the API's default is unlimited). */
const FULLBOX_WITHOUT_MAX = 1000;

/**
 * The answer as the lying deployment sends it. `silentcap` cuts every answer at n objects without a
 * word; `empty` sends none; `fullbox` tops a box answer up to `max` with phantom objects spread over
 * the box, so every box, however small, claims to be full (the world's own objects come first).
 */
export function applyCoordLies(result: CoordResult, q: CoordQuery, faults: FaultSpec | undefined): CoordResult {
  if (!faults || q.detail) return result;
  if (faults.empty) return { pins: [] };
  if (faults.silentcap !== undefined) return { pins: result.pins.slice(0, faults.silentcap) };
  if (faults.fullbox && q.box) {
    const want = q.max ?? FULLBOX_WITHOUT_MAX;
    const pins = result.pins.slice(0, want);
    const type = phantomType(q);
    const [w, s, e, n] = q.box;
    for (let i = pins.length; i < want; i++) {
      // A deterministic scatter over the box (two coprime strides), rounded inside it to the 6 decimals real answers carry.
      const lon = clampRound(w + ((e - w) * (((i * 37) % 101) + 0.5)) / 101, w, e);
      const lat = clampRound(s + ((n - s) * (((i * 61) % 103) + 0.5)) / 103, s, n);
      const id = `phantom:${lon.toFixed(6)}:${lat.toFixed(6)}:${i}`;
      const out: PinOut = { pin: { key: id, type, id, name: `Phantom ${i}`, lon, lat, attrs: {} }, distanceM: 0, extra: {}, ...(type === 'STOP' ? { motTypes: [] } : {}) };
      pins.push(out);
    }
    return { pins };
  }
  return result;
}

function phantomType(q: CoordQuery): PinType {
  const asked = q.blocks[0]?.type;
  return (PIN_TYPES as readonly string[]).includes(asked ?? '') ? (asked as PinType) : 'POI_POINT';
}

function clampRound(v: number, lo: number, hi: number): number {
  const r = Math.round(v * 1e6) / 1e6;
  return Math.min(hi, Math.max(lo, r));
}
