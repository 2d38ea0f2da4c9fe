import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/http/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T02:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date relative to now, past dates as 0', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 02:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 01 Mar 2025 01:59:00 GMT', now)).toBe(0);
  });

  it('gives undefined for absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
