/**
 * The base pin store of a generated world. Positions live in typed arrays; type, name, id and
 * attributes are derived from (seed, index) on demand, so the store is a few bytes per pin.
 */
import { hash32, pick } from './rng.js';
import { districtName, placeName, poiName, POI_CATEGORIES, stopName } from './names.js';
import type { PinSource } from './pin-layer.js';
import { PIN_TYPES, type Pin, type PinType, type Provider, type StopIdScheme } from './types.js';

/** Cumulative per-mille shares of the pin types, in PIN_TYPES order. */
const TYPE_SHARES: readonly [PinType, number][] = [
  ['STOP', 80], ['POI_POINT', 500], ['POI_AREA', 530], ['GIS_POINT', 550], ['BUS_POINT', 570], ['PARKING', 650], ['SHARING', 1000],
];
export const PARKING_KINDS = [1, 2, 4, 8, 32] as const;
const ENGINES = ['ELECTRIC', 'COMBUSTION', 'HYBRID'] as const;
const OMCS = ['08111', '08115', '08116', '08118', '08119'] as const;
const KEY_INDEX = /^(?:de:\d{5}:|poi:|pin:|poiarea:|gis:|buspoint:|parking:|V)(\d+)(?::|$)/;
const GLOBAL_STOP_ID = /^de:\d{5}:(\d+)$/;
const LOCAL_STOP_ID = /^\d+$/;
const STOP = PIN_TYPES.indexOf('STOP');

/** How stops are numbered: by their global id, or locally from `base` in the order of their index. */
export type StopNumbering = { readonly scheme: 'global' } | { readonly scheme: 'local'; readonly base: number };

export function typeCodeFor(seed: number, i: number): number {
  const r = hash32(seed, i, 1) % 1000;
  for (const [t, limit] of TYPE_SHARES) if (r < limit) return PIN_TYPES.indexOf(t);
  return PIN_TYPES.indexOf('SHARING');
}

export class GeneratedPins implements PinSource {
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  readonly kind: Uint8Array;
  /** SHARING: provider index << 8 | area index. STOP: 1 when a generated line serves it. */
  readonly aux: Uint16Array;
  /** Local stop numbering: the n-th stop (by index) has local id base + n. Filled by numberStops(). */
  private stopOrdinal = new Int32Array(0);
  private stopIndex = new Int32Array(0);

  constructor(
    readonly count: number,
    private readonly seed: number,
    private readonly centre: readonly [number, number],
    private readonly providers: () => readonly Provider[],
    private readonly numbering: StopNumbering = { scheme: 'global' },
  ) {
    this.lon = new Float64Array(count);
    this.lat = new Float64Array(count);
    this.kind = new Uint8Array(count);
    this.aux = new Uint16Array(count);
  }

  get stopIdScheme(): StopIdScheme { return this.numbering.scheme; }

  /**
   * Numbers the stops once their kinds are set. The ordinal depends only on (seed, size), so two
   * worlds of one seed number the same stop alike, and two seeds of one size share the numbers.
   */
  numberStops(): void {
    if (this.numbering.scheme === 'global') return;
    this.stopOrdinal = new Int32Array(this.count).fill(-1);
    const indexes: number[] = [];
    for (let i = 0; i < this.count; i++) {
      if (this.kind[i] !== STOP) continue;
      this.stopOrdinal[i] = indexes.length;
      indexes.push(i);
    }
    this.stopIndex = Int32Array.from(indexes);
  }

  private stopIds(i: number, omc: string): { id: string; globalId: string } {
    const globalId = `de:${omc}:${i}`;
    if (this.numbering.scheme === 'global') return { id: globalId, globalId };
    const ordinal = this.stopOrdinal[i];
    if (ordinal === undefined || ordinal < 0) throw new RangeError(`stop ${i} is not numbered: call numberStops() after setting the kinds`);
    return { id: String(this.numbering.base + ordinal), globalId };
  }

  private omc(i: number): string {
    const dx = (this.lon[i] ?? 0) - this.centre[0], dy = (this.lat[i] ?? 0) - this.centre[1];
    if (Math.abs(dx) < 0.06 && Math.abs(dy) < 0.04) return OMCS[0];
    return pick(OMCS.slice(1), (dx > 0 ? 1 : 0) + (dy > 0 ? 2 : 0));
  }

  pinAt(i: number): Pin {
    const type = PIN_TYPES[this.kind[i] ?? 0] ?? 'POI_POINT';
    const h = hash32(this.seed, i, 2);
    const lon = this.lon[i] ?? 0, lat = this.lat[i] ?? 0;
    switch (type) {
      case 'STOP': {
        const omc = this.omc(i);
        const { id, globalId } = this.stopIds(i, omc);
        const motTypes = this.aux[i] === 1 ? [] : [h % 5 === 0 ? 10 : 5];
        return { key: id, id, globalId, type, name: stopName(h), lon, lat, motTypes, attrs: { omc: `${Number(omc)}000` } };
      }
      case 'POI_POINT': {
        const hasId = (h & 6) !== 0;
        const key = hasId ? `poi:${i}` : `pin:${i}`;
        const attrs = { poiCategory: pick(POI_CATEGORIES, h >>> 4), locality: districtName(h >>> 20) };
        return { key, type, name: poiName(h), lon, lat, attrs, ...(hasId ? { id: key } : {}) };
      }
      case 'POI_AREA':
        return { key: `poiarea:${i}`, id: `poiarea:${i}`, type, name: `${placeName(h)} (Areal)`, lon, lat, attrs: { locality: districtName(h >>> 20) } };
      case 'GIS_POINT':
        return { key: `gis:${i}`, id: `gis:${i}`, type, name: `Messpunkt ${placeName(h)}`, lon, lat, attrs: { layer: 'SIM_GIS' } };
      case 'BUS_POINT':
        return { key: `buspoint:${i}`, id: `buspoint:${i}`, type, name: `Bussteig ${placeName(h)}`, lon, lat, attrs: {} };
      case 'PARKING':
        return {
          key: `parking:${i}`, id: `parking:${i}`, type, name: `P ${placeName(h)}`, lon, lat,
          attrs: {
            parkingObjectType: pick(PARKING_KINDS, h >>> 3), capacity: 5 + (h >>> 10) % 400,
            charge: (h & 1) === 0 ? 'pay' : 'free', parkRide: (h >>> 20) % 7 === 0, bikeRide: (h >>> 23) % 9 === 0,
          },
        };
      case 'SHARING': {
        const a = this.aux[i] ?? 0;
        const provider = this.providers()[a >> 8];
        const area = provider?.areas[a & 0xff];
        const pid = provider?.id ?? 'none', aid = area?.id ?? 'none';
        const id = `V${i}:${pid}:${aid}`;
        return {
          key: id, id, type, name: `${provider?.name ?? 'Sharing'} ${(h >>> 4) % 10000}`, lon, lat,
          attrs: {
            vehicleType: provider?.vehicleType ?? 'BIKE', engineType: pick(ENGINES, h >>> 7), operatorId: pid, opAreaId: aid,
            locationType: 'FREEFLOATER', fuelPercent: (h >>> 12) % 101,
          },
        };
      }
    }
  }

  indexOf(key: string): number | undefined {
    if (this.numbering.scheme === 'local' && LOCAL_STOP_ID.test(key)) {
      const i = this.stopIndex[Number(key) - this.numbering.base];
      return i !== undefined && this.pinAt(i).key === key ? i : undefined;
    }
    const m = KEY_INDEX.exec(key);
    if (!m?.[1]) return undefined;
    const i = Number(m[1]);
    if (!Number.isInteger(i) || i >= this.count) return undefined;
    return this.pinAt(i).key === key ? i : undefined;
  }

  indexOfGlobalId(globalId: string): number | undefined {
    const m = GLOBAL_STOP_ID.exec(globalId);
    if (!m?.[1]) return undefined;
    const i = Number(m[1]);
    if (i >= this.count || this.kind[i] !== STOP) return undefined;
    return this.pinAt(i).globalId === globalId ? i : undefined;
  }
}
