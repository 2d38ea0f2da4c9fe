/**
 * Pins: an immutable base (typed arrays, possibly a million entries) under a small mutable
 * overlay. Mutations never touch the base arrays; they shadow base entries, so the spatial index
 * stays valid and a mutated world costs only what was changed.
 */
import { bboxOfCircle, haversineM, inBox } from './geo.js';
import { GridIndex } from './grid.js';
import { UnknownObjectError } from './errors.js';
import { PIN_TYPES, type BBox, type NewPin, type Pin, type PinType } from './types.js';

export const PIN_TYPE_CODE: Readonly<Record<PinType, number>> = Object.fromEntries(
  PIN_TYPES.map((t, i) => [t, i]),
) as Record<PinType, number>;

/** The base store: parallel arrays plus on-demand materialisation of one pin. */
export interface PinSource {
  readonly count: number;
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  /** Index into PIN_TYPES. */
  readonly kind: Uint8Array;
  pinAt(index: number): Pin;
  indexOf(key: string): number | undefined;
  /** The index of the STOP pin with this global id. */
  indexOfGlobalId(globalId: string): number | undefined;
}

export interface PinHit {
  readonly pin: Pin;
  readonly distanceM: number;
}

type TypeFilter = ReadonlySet<PinType> | undefined;

export class PinLayer {
  readonly grid: GridIndex;
  private readonly removed = new Set<number>();
  private readonly replaced = new Map<number, Pin>();
  private readonly added = new Map<string, Pin>();
  private readonly baseBounds: BBox;

  constructor(readonly base: PinSource) {
    let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
    for (let i = 0; i < base.count; i++) {
      const x = base.lon[i] ?? 0, y = base.lat[i] ?? 0;
      if (x < minLon) minLon = x;
      if (x > maxLon) maxLon = x;
      if (y < minLat) minLat = y;
      if (y > maxLat) maxLat = y;
    }
    this.baseBounds = base.count > 0 ? [minLon, minLat, maxLon, maxLat] : [0, 0, 0, 0];
    this.grid = new GridIndex(base.lon, base.lat, this.baseBounds, base.count);
  }

  get count(): number {
    return this.base.count - this.removed.size + this.added.size;
  }

  /** [minLon, minLat, maxLon, maxLat] over all live pins. */
  get bbox(): BBox {
    const extra = [...this.replaced.values(), ...this.added.values()];
    if (extra.length === 0 && this.removed.size === 0) return this.baseBounds;
    let [minLon, minLat, maxLon, maxLat] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const p of this.all()) {
      minLon = Math.min(minLon, p.lon); maxLon = Math.max(maxLon, p.lon);
      minLat = Math.min(minLat, p.lat); maxLat = Math.max(maxLat, p.lat);
    }
    return [minLon, minLat, maxLon, maxLat];
  }

  private baseLive(i: number): boolean {
    return !this.removed.has(i) && !this.replaced.has(i);
  }

  private typeOk(i: number, types: TypeFilter): boolean {
    if (!types) return true;
    const t = PIN_TYPES[this.base.kind[i] ?? 0];
    return t !== undefined && types.has(t);
  }

  *inBox(b: BBox, types?: TypeFilter): Generator<Pin> {
    const shadowed = this.removed.size + this.replaced.size > 0;
    for (const i of this.grid.query(b)) {
      if (shadowed && !this.baseLive(i)) continue;
      if (this.typeOk(i, types)) yield this.base.pinAt(i);
    }
    for (const p of this.overlayPins()) {
      if ((!types || types.has(p.type)) && inBox(p.lon, p.lat, b)) yield p;
    }
  }

  /** Pins within `radiusM` metres (great circle, inclusive) of the point. */
  *inCircle(lon: number, lat: number, radiusM: number, types?: TypeFilter): Generator<PinHit> {
    for (const pin of this.inBox(bboxOfCircle(lon, lat, radiusM), types)) {
      const d = haversineM(lon, lat, pin.lon, pin.lat);
      if (d <= radiusM) yield { pin, distanceM: d };
    }
  }

  *all(types?: TypeFilter): Generator<Pin> {
    for (let i = 0; i < this.base.count; i++) {
      if (this.baseLive(i) && this.typeOk(i, types)) yield this.base.pinAt(i);
    }
    for (const p of this.overlayPins()) if (!types || types.has(p.type)) yield p;
  }

  private *overlayPins(): Generator<Pin> {
    yield* this.replaced.values();
    yield* this.added.values();
  }

  get(key: string): Pin | undefined {
    const added = this.added.get(key);
    if (added) return added;
    const i = this.base.indexOf(key);
    if (i === undefined || this.removed.has(i)) return undefined;
    return this.replaced.get(i) ?? this.base.pinAt(i);
  }

  /** The live STOP pin whose global id this is (its `id` may be a local one). */
  getByGlobalId(globalId: string): Pin | undefined {
    for (const p of this.added.values()) if (p.globalId === globalId) return p;
    const i = this.base.indexOfGlobalId(globalId);
    if (i === undefined || this.removed.has(i)) return undefined;
    return this.replaced.get(i) ?? this.base.pinAt(i);
  }

  add(p: NewPin): Pin {
    const key = p.key ?? p.id ?? `pin:+${this.added.size + 1}:${p.name}`;
    if (this.get(key)) throw new RangeError(`pin key already exists: ${key}`);
    const pin: Pin = {
      key, type: p.type, name: p.name, lon: p.lon, lat: p.lat, attrs: { ...(p.attrs ?? {}) },
      ...(p.id !== undefined ? { id: p.id } : {}),
      ...(p.globalId !== undefined ? { globalId: p.globalId } : {}),
      ...(p.motTypes !== undefined ? { motTypes: [...p.motTypes] } : {}),
    };
    this.added.set(key, pin);
    return pin;
  }

  /** Replaces fields of a live pin (move, rename, attrs); key, type and id stay. */
  update(key: string, patch: Partial<Pick<Pin, 'name' | 'lon' | 'lat' | 'attrs' | 'motTypes'>>): Pin {
    const current = this.get(key);
    if (!current) throw new UnknownObjectError('pin', key);
    const next: Pin = { ...current, ...patch };
    if (this.added.has(key)) this.added.set(key, next);
    else this.replaced.set(this.indexOrThrow(key), next);
    return next;
  }

  remove(key: string): void {
    if (this.added.delete(key)) return;
    const i = this.indexOrThrow(key);
    if (this.removed.has(i)) throw new UnknownObjectError('pin', key);
    this.replaced.delete(i);
    this.removed.add(i);
  }

  private indexOrThrow(key: string): number {
    const i = this.base.indexOf(key);
    if (i === undefined) throw new UnknownObjectError('pin', key);
    return i;
  }
}
