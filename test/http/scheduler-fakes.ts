import { vi } from 'vitest';
import type { RetryHint } from '../../src/http/types.js';

/** An attempt's failure as a transport reports it: retryable or not, with a server's Retry-After and whether it was a 429. */
export class Flaky extends Error implements RetryHint {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly rateLimited?: boolean,
  ) {
    super(message);
  }
}

export const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Settles `promise` while fake time runs, so a rejection is never reported as unhandled. */
export async function settle<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T>> {
  const settled = Promise.allSettled([promise]);
  await vi.advanceTimersByTimeAsync(ms);
  const [result] = await settled;
  if (result === undefined) throw new Error('unreachable');
  return result;
}
