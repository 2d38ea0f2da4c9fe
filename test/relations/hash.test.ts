import { describe, expect, it } from 'vitest';
import { contentHash, stableJson, stableJsonByReplacer } from '../../src/relations/hash.js';

/** A small deterministic generator (no dependency): the same values on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const keyPool = ['a', 'b', 'Z', 'name', '0', '1', '2', '10', '9', '007', '-1', '1.5', '4294967294', '4294967295', 'ä', '\u0000x', '', '__proto__x', 'id'];
const stringPool = ['', 'x', 'Bahnhof "Süd"', 'tab\there', 'line\nbreak', '\u2028', '😀', '\\', 'nul\u0000'];

function randomValue(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth <= 0 || pick < 0.35) {
    const leaf = Math.floor(next() * 9);
    return [
      null,
      true,
      false,
      Math.round(next() * 1e6) / 1e3,
      -0,
      Number.NaN,
      undefined,
      stringPool[Math.floor(next() * stringPool.length)],
      Math.floor(next() * 100),
    ][leaf];
  }
  if (pick < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 6); i > 0; i--) object[keyPool[Math.floor(next() * keyPool.length)] ?? 'k'] = randomValue(next, depth - 1);
  return object;
}

describe('stableJson', () => {
  it('writes exactly the text of the replacer it replaced, so no stored content_hash changes', () => {
    const next = rng(20261124);
    for (let i = 0; i < 5000; i++) {
      const value = randomValue(next, 4);
      expect(stableJson(value)).toBe(stableJsonByReplacer(value));
    }
  });

  it('falls back to the replacer for values that are not parsed JSON (toJSON, class instances)', () => {
    const value = { at: new Date(0), list: [new Map([[1, 2]])], n: 1 };
    expect(stableJson(value)).toBe(stableJsonByReplacer(value));
  });

  it('keeps a pin row hash stable (a hash computed before this rewrite)', () => {
    const row = { type: 'STOP', id: '1000001', name: 'Hauptbahnhof', mot_types: [0, 5], lon: 9.1815, lat: 48.7838, attrs: { z: 1, a: { '10': 'x', '9': 'y' } } };
    expect(contentHash(row)).toBe('72694178211f9d6e18b04088e5a255b0e0f2a907');
  });
});

