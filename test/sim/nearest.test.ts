/** The simulator's nearest-hits selection against the full answer it stands for: every hit kept in a map, sorted, cut. */
import { describe, expect, it } from 'vitest';
import { NearestHits } from '../../src/sim/ops/nearest.js';
import { makeRng } from '../../src/sim/rng.js';

interface Hit {
  readonly pin: { readonly key: string };
  readonly distanceM: number;
  readonly tag: number;
}

/** What runCoordQuery does without the selection: offer keeps a key's first hit, put its last; then by (distance, key). */
function reference(ops: readonly { put: boolean; hit: Hit }[], max: number): Hit[] {
  const byKey = new Map<string, Hit>();
  for (const { put, hit } of ops) if (put || !byKey.has(hit.pin.key)) byKey.set(hit.pin.key, hit);
  const key = (h: Hit): string => h.pin.key;
  return [...byKey.values()].sort((a, b) => a.distanceM - b.distanceM || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).slice(0, max);
}

describe('NearestHits', () => {
  it('keeps what the full answer sorted and cut keeps, ties and repeated keys included', () => {
    const rng = makeRng(42);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const keys = 1 + Math.floor(rng() * 60);
      const max = Math.floor(rng() * 40);
      const ops = Array.from({ length: Math.floor(rng() * 150) }, (_, tag) => {
        const k = Math.floor(rng() * keys);
        // One key, one distance (the same object from one centre); few distances, so many ties.
        const distanceM = (k * 7) % 11;
        return { put: rng() < 0.2, hit: { pin: { key: `k${k}` }, distanceM, tag } };
      });
      const nearest = new NearestHits<Hit>(max);
      for (const { put, hit } of ops) {
        // The caller asks before describing a hit, and offers only what is wanted.
        if (put) nearest.put(hit);
        else if (nearest.wants(hit.pin.key, hit.distanceM)) nearest.offer(hit);
      }
      expect(nearest.sorted()).toEqual(reference(ops, max));
      checked += ops.length;
    }
    expect(checked).toBeGreaterThan(20_000);
  });
});
