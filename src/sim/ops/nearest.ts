/**
 * The hits of a CoordInfo answer in the `distance` order with a `max`: the `max` nearest by
 * (distance, key), the order a full sort of every hit gives, without describing or sorting the
 * hits that cannot be among them. A box over a whole 2,000,000-pin world described and sorted its
 * million hits to keep a thousand: 7.6 s an answer, where a deployment's own index answers in well
 * under a second (docs/simulator.md).
 *
 * Every hit of one key is as far from the centre as the others (one object, one centre: a pin found
 * by two blocks): a key left out once can never be among the nearest later, so nothing but the kept
 * hits is remembered.
 */
/** A hit as the answer holds it (PinOut). */
interface Hit {
  readonly pin: { readonly key: string };
  readonly distanceM: number;
}

interface Held<T> {
  readonly key: string;
  readonly distanceM: number;
  out: T;
}

/** Whether a comes after b in the answer: farther, or as far with the greater key. */
const after = (a: { distanceM: number; key: string }, b: { distanceM: number; key: string }): boolean =>
  a.distanceM > b.distanceM || (a.distanceM === b.distanceM && a.key > b.key);

export class NearestHits<T extends Hit> {
  /** A max-heap by answer order: the root is the last of the kept hits. */
  private readonly heap: Held<T>[] = [];
  private readonly byKey = new Map<string, Held<T>>();

  constructor(private readonly max: number) {}

  /** Whether a hit `distanceM` from the centre with this key would be kept now (it is not held already). */
  wants(key: string, distanceM: number): boolean {
    if (this.byKey.has(key)) return false;
    const last = this.heap[0];
    return this.heap.length < this.max || last === undefined || after(last, { key, distanceM });
  }

  /** Keeps the hit unless its key is held: the first hit of a key wins, as in the full answer's map. */
  offer(out: T): void {
    if (!this.wants(out.pin.key, out.distanceM)) return;
    this.insert({ key: out.pin.key, distanceM: out.distanceM, out });
  }

  /** Keeps the hit, replacing one of the same key: the last hit of a key wins, as the map's set does. */
  put(out: T): void {
    const held = this.byKey.get(out.pin.key);
    if (held) held.out = out;
    else if (this.wants(out.pin.key, out.distanceM)) this.insert({ key: out.pin.key, distanceM: out.distanceM, out });
  }

  /** The kept hits, nearest first. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0)).map((h) => h.out);
  }

  /** Keeps `h`; when `max` are kept, in the place of the last of them (the root), which goes. */
  private insert(h: Held<T>): void {
    if (this.max <= 0) return;
    this.byKey.set(h.key, h);
    const last = this.heap[0];
    if (last !== undefined && this.heap.length >= this.max) {
      this.byKey.delete(last.key);
      this.heap[0] = h;
      this.down(0);
      return;
    }
    this.heap.push(h);
    this.up(this.heap.length - 1);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!after(h[i] as Held<T>, h[p] as Held<T>)) return;
      [h[i], h[p]] = [h[p] as Held<T>, h[i] as Held<T>];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let top = i;
      if (l < h.length && after(h[l] as Held<T>, h[top] as Held<T>)) top = l;
      if (r < h.length && after(h[r] as Held<T>, h[top] as Held<T>)) top = r;
      if (top === i) return;
      [h[i], h[top]] = [h[top] as Held<T>, h[i] as Held<T>];
      i = top;
    }
  }
}
