import { describe, expect, it } from 'vitest';
import {
  describeError,
  HttpConnectionError,
  HttpTimeoutError,
  isRetryHint,
  RetriesExhaustedError,
  retryHintOf,
} from '../../src/http/errors.js';

describe('retry hints', () => {
  it('recognises anything with a boolean retryable', () => {
    expect(isRetryHint(new HttpTimeoutError('x', 10))).toBe(true);
    expect(isRetryHint({ retryable: false })).toBe(true);
    expect(isRetryHint({ retryable: 'yes' })).toBe(false);
    expect(isRetryHint(new Error('plain'))).toBe(false);
    expect(isRetryHint(null)).toBe(false);
    expect(isRetryHint('retryable')).toBe(false);
  });

  it('normalises hints and distrusts odd Retry-After values', () => {
    expect(retryHintOf(new Error('plain'))).toEqual({ retryable: false });
    expect(retryHintOf({ retryable: true, retryAfterMs: 2000, rateLimited: true })).toEqual({
      retryable: true,
      retryAfterMs: 2000,
      rateLimited: true,
    });
    expect(retryHintOf({ retryable: true, retryAfterMs: -5 })).toEqual({ retryable: true });
    expect(retryHintOf({ retryable: true, retryAfterMs: Number.NaN })).toEqual({ retryable: true });
    expect(retryHintOf({ retryable: true, rateLimited: 'no' })).toEqual({ retryable: true });
  });
});

describe('errors', () => {
  it('are named, carry their fields and say whether to retry', () => {
    const cause = new TypeError('fetch failed');
    const connection = new HttpConnectionError('coordInfo', { cause, code: 'ECONNRESET', url: 'http://u:p@h/efa?key=1' });
    expect(connection.name).toBe('HttpConnectionError');
    expect(connection.retryable).toBe(true);
    expect(connection.cause).toBe(cause);
    expect(connection.url).toBe('http://u:***@h/efa?key=***');
    expect(connection.message).toBe('coordInfo: connection failed (ECONNRESET) for http://u:***@h/efa?key=***');

    const exhausted = new RetriesExhaustedError('coordInfo', 5, connection);
    expect(exhausted.name).toBe('RetriesExhaustedError');
    expect(exhausted.retryable).toBe(false);
    expect(exhausted.attempts).toBe(5);
    expect(exhausted.cause).toBe(connection);
    expect(describeError(exhausted)).toContain('gave up after 5 attempts');

    expect(new HttpTimeoutError('opArea', 30000).message).toBe('opArea: no reply after 30000 ms');
  });
});
