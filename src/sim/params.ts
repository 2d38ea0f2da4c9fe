/** Strict reading of query parameters; every failure names the parameter (answered as 400). */
import { fromDmy, fromYmdCompact } from './dates.js';
import { BadParameterError } from './errors.js';

const COORD = /^(-?\d{1,3}(?:\.\d+)?):(-?\d{1,2}(?:\.\d+)?):WGS84\[dd\.ddddd\](?::(\d+(?:\.\d+)?))?$/i;
export const COORD_FORMAT = '<lon>:<lat>:WGS84[dd.ddddd]';

export interface LonLat { readonly lon: number; readonly lat: number }

export class Params {
  constructor(private readonly q: URLSearchParams) {}

  has(name: string): boolean { return this.q.has(name); }
  names(): string[] { return [...new Set(this.q.keys())]; }

  get(name: string): string | undefined {
    const v = this.q.get(name);
    return v === null ? undefined : v;
  }

  required(name: string, what = 'is required'): string {
    const v = this.get(name);
    if (v === undefined || v === '') throw new BadParameterError(name, what);
    return v;
  }

  all(name: string): string[] {
    return this.q.getAll(name);
  }

  int(name: string, min: number, max: number): number | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new BadParameterError(name, `expected an integer, got "${v}"`);
    const n = Number(v);
    if (n < min || n > max) throw new BadParameterError(name, `expected ${min}..${max}, got ${n}`);
    return n;
  }

  /** A switch whose only meaningful value is 1 (0 accepted as off). */
  flag(name: string): boolean {
    const v = this.get(name);
    if (v === undefined) return false;
    if (v !== '1' && v !== '0') throw new BadParameterError(name, `expected 1 or 0, got "${v}"`);
    return v === '1';
  }

  oneOf<T extends string>(name: string, values: readonly T[], raw?: string): T | undefined {
    const v = raw ?? this.get(name);
    if (v === undefined) return undefined;
    const hit = values.find((x) => x.toLowerCase() === v.toLowerCase());
    if (!hit) throw new BadParameterError(name, `expected one of ${values.join(', ')}, got "${v}"`);
    return hit;
  }

  allOf<T extends string>(name: string, values: readonly T[]): T[] {
    return this.all(name).map((v) => this.oneOf(name, values, v) as T);
  }

  coord(name: string, withRadius = false): (LonLat & { radius?: number }) | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    return parseCoord(name, v, withRadius);
  }

  /** Colon-separated integer ids such as MOT lists (`1:2:5`). */
  idList(name: string, min = 0, max = 99): number[] | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const parts = v.split(':');
    if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < min || Number(p) > max)) {
      throw new BadParameterError(name, `expected ids ${min}..${max} separated by ":", got "${v}"`);
    }
    return parts.map(Number);
  }

  dmy(name: string, raw?: string): string | undefined {
    const v = raw ?? this.get(name);
    if (v === undefined) return undefined;
    const iso = fromDmy(v);
    if (!iso) throw new BadParameterError(name, `expected a date DD-MM-YYYY, got "${v}"`);
    return iso;
  }

  ymd(name: string): string | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const iso = fromYmdCompact(v);
    if (!iso) throw new BadParameterError(name, `expected a date YYYYMMDD, got "${v}"`);
    return iso;
  }

  /** `<prefix><n>` parameters, by their running index. */
  indexed(prefix: string): Map<number, string> {
    const out = new Map<number, string>();
    for (const k of this.names()) {
      if (!k.startsWith(prefix)) continue;
      const rest = k.slice(prefix.length);
      if (/^\d+$/.test(rest)) out.set(Number(rest), this.get(k) ?? '');
    }
    return out;
  }
}

export function parseCoord(name: string, v: string, withRadius = false): LonLat & { radius?: number } {
  const m = COORD.exec(v);
  const bad = (): never => {
    throw new BadParameterError(name, `expected ${COORD_FORMAT}${withRadius ? '[:<radius_m>]' : ''}, got "${v}"`);
  };
  if (!m) return bad();
  if (m[3] !== undefined && !withRadius) return bad();
  const lon = Number(m[1]), lat = Number(m[2]);
  if (Math.abs(lon) > 180 || Math.abs(lat) > 90) return bad();
  return { lon, lat, ...(m[3] !== undefined ? { radius: Number(m[3]) } : {}) };
}
