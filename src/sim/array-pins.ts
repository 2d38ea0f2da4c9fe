/** A base pin store over ordinary pin objects: right for loaded real data (tens of thousands). */
import { PIN_TYPE_CODE, type PinSource } from './pin-layer.js';
import type { Pin } from './types.js';

export class ArrayPins implements PinSource {
  readonly count: number;
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  readonly kind: Uint8Array;
  private readonly byKey = new Map<string, number>();
  private readonly byGlobalId = new Map<string, number>();
  private readonly pins: Pin[];

  constructor(pins: readonly Pin[]) {
    // Later duplicates of a key are dropped: keys must stay unique.
    this.pins = pins.filter((p) => !this.byKey.has(p.key) && (this.byKey.set(p.key, this.byKey.size), true));
    this.count = this.pins.length;
    this.lon = Float64Array.from(this.pins, (p) => p.lon);
    this.lat = Float64Array.from(this.pins, (p) => p.lat);
    this.kind = Uint8Array.from(this.pins, (p) => PIN_TYPE_CODE[p.type]);
    this.pins.forEach((p, i) => {
      if (p.type === 'STOP' && p.globalId !== undefined && !this.byGlobalId.has(p.globalId)) this.byGlobalId.set(p.globalId, i);
    });
  }

  pinAt(i: number): Pin {
    const p = this.pins[i];
    if (!p) throw new RangeError(`no pin at ${i}`);
    return p;
  }

  indexOf(key: string): number | undefined {
    return this.byKey.get(key);
  }

  indexOfGlobalId(globalId: string): number | undefined {
    return this.byGlobalId.get(globalId);
  }
}
