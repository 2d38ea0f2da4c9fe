import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Pin } from '../../src/efa/records.js';
import { storable } from '../../src/efa/text/storable.js';
import { stableJsonByReplacer } from '../../src/relations/hash.js';
import { fixedJson, pinKey, toPinRow } from '../../src/relations/pins.js';

/**
 * toPinRow as it was before the row's hashed text was written by hand: every stored value and
 * content hash must stay what this gives, or existing warehouses would see every pin as changed.
 * The hash is taken over stableJsonByReplacer, the hashes' original definition.
 */
function toPinRowBefore(clean: Pin) {
  const attrs = Object.fromEntries(Object.entries(clean.attrs).filter(([k]) => !['distance'].includes(k)));
  const round = (x: number, d: number): number => Number(x.toFixed(d));
  const lon = round(clean.coord.lon, 7);
  const lat = round(clean.coord.lat, 7);
  const motTypes = [...new Set(clean.motTypes)].sort((a, b) => a - b);
  const row = { type: clean.type, id: clean.id ?? null, name: clean.name, mot_types: motTypes, lon, lat, attrs };
  const globalId = clean.type === 'STOP' ? (clean.globalId ?? null) : null;
  return { pin_key: pinKey(clean), ...row, global_id: globalId, content_hash: hash('sha1', stableJsonByReplacer(row) as string, 'hex') };
}

/** A small deterministic generator (no dependency): the same values on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(next: () => number, pool: readonly T[]): T => pool[Math.floor(next() * pool.length)] as T;

const keyPool = ['a', 'Z', 'name', 'distance', 'distance\u0000', '0', '10', '9', '007', '-1', 'ä', '\u0000x', '', 'omc', 'poiCategory', 'id'];
const stringPool = ['', 'x', 'Bahnhof "Süd"', 'tab\there', 'line\nbreak', '\u2028', '😀', '\ud800', '\\', 'nul\u0000', '\\u0000', 'back\\u0000slash'];

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth <= 0 || roll < 0.4) {
    return [null, true, false, Math.round(next() * 1e6) / 1e3, -0, 1e21, 5e-7, pick(next, stringPool), Math.floor(next() * 100)][Math.floor(next() * 9)];
  }
  if (roll < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) object[pick(next, keyPool)] = randomValue(next, depth - 1);
  return object;
}

/** Coordinates of every magnitude a parser lets through, and the edges of toFixed and of number formatting. */
function randomCoordinate(next: () => number, limit: number): number {
  const roll = next();
  if (roll < 0.1) return pick(next, [0, -0, 1e-7, -1e-7, 5e-8, -5e-8, 4.9999999e-8, 1e-6, 0.1 + 0.2, limit, -limit, 9.18, 48.78]);
  if (roll < 0.3) return (next() * 2 - 1) * 10 ** -Math.floor(next() * 12);
  if (roll < 0.5) return Number(((next() * 2 - 1) * limit).toFixed(Math.floor(next() * 10)));
  return (next() * 2 - 1) * limit;
}

function randomPin(next: () => number): Pin {
  const id = next() < 0.3 ? undefined : pick(next, ['1000001', 'de:08111:6008', 'nul\u0000id', '\\u0000', 'ä']);
  const globalId = next() < 0.5 ? undefined : pick(next, ['de:08111:6008', 'g\u0000id']);
  const attrs = randomValue(next, 3);
  return {
    type: pick(next, ['STOP', 'POI_POINT', 'PARKING', 'T\u0000']),
    ...(id === undefined ? {} : { id }),
    name: pick(next, stringPool),
    coord: { lon: randomCoordinate(next, 180), lat: randomCoordinate(next, 90) },
    motTypes: Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * 12)),
    ...(globalId === undefined ? {} : { globalId }),
    attrs: {
      ...(attrs !== null && typeof attrs === 'object' && !Array.isArray(attrs) ? (attrs as Record<string, unknown>) : {}),
      ...(next() < 0.7 ? { distance: pick(next, [12, '3\u0000', { a: 'x' }]) } : {}),
    },
  };
}

describe('toPinRow', () => {
  it('gives the rows and content hashes of the former toPinRow for storable pins, literal backslash-u0000 and odd numbers included', () => {
    const next = rng(20261126);
    for (let i = 0; i < 20000; i++) {
      const pin = randomPin(next);
      // As parseEach hands pins on: storable (no U+0000, no lone surrogate; a literal backslash-u0000 kept).
      const clean = storable(pin);
      const before = toPinRowBefore(clean);
      const { attrs_json: attrsJson, ...row } = toPinRow(clean);
      expect(row).toEqual(before);
      // The text COPYed as the jsonb column: the same JSON value as the attrs stringified before.
      expect(attrsJson).toBe(stableJsonByReplacer(before.attrs));
      expect(JSON.parse(attrsJson)).toEqual(JSON.parse(JSON.stringify(before.attrs)));
    }
  });

  it('leaves the distance from the search centre out, and keeps a pin row hash computed before', () => {
    const pin: Pin = { type: 'STOP', id: '1000001', name: 'Hauptbahnhof', coord: { lon: 9.1815, lat: 48.7838 }, motTypes: [5, 0, 5], attrs: { z: 1, distance: 40, a: { '10': 'x', '9': 'y' } } };
    const row = toPinRow(pin);
    expect(row.attrs_json).toBe('{"a":{"9":"y","10":"x"},"z":1}');
    expect(row.content_hash).toBe('72694178211f9d6e18b04088e5a255b0e0f2a907');
  });
});

describe('fixedJson', () => {
  it('is JSON.stringify of the rounded coordinate, for coordinates of every magnitude and sign', () => {
    const next = rng(7);
    for (let i = 0; i < 300000; i++) {
      const x = randomCoordinate(next, pick(next, [90, 180, 1e7, 1e9, 1e16, 1e22]));
      const fixed = x.toFixed(7);
      expect(fixedJson(fixed, Number(fixed))).toBe(JSON.stringify(Number(fixed)));
    }
    for (const x of [0, -0, 1e-6, -1e-6, 9.9999995e-7, 1e-7, 99999999.99999999, 1e8, -1e8, 123456789.1234567, 1e21, Number.NaN, Infinity]) {
      const fixed = x.toFixed(7);
      expect(fixedJson(fixed, Number(fixed))).toBe(JSON.stringify(Number(fixed)));
    }
  });
});
