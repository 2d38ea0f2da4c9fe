import { describe, expect, it } from 'vitest';
import { restOf } from '../../src/efa/parse/common.js';

describe('restOf: the fields of an answer no column takes, kept in attrs', () => {
  it('keeps the unknown fields and leaves the known ones out', () => {
    expect(restOf({ id: '1', name: 'Hbf', platform: '3', extra: { a: 1 } }, ['id', 'name'])).toEqual({ platform: '3', extra: { a: 1 } });
  });

  it('stores a field called __proto__ as a field: it sets no prototype', () => {
    const raw = JSON.parse('{"id":"1","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const attrs = restOf(raw, ['id']);
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
    expect((attrs as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(attrs)).toBe('{"__proto__":{"polluted":true}}');
  });
});
