export type { HttpGet, HttpReply, RequestScheduler, RetryHint, SchedulerEvent, Transport } from './types.js';
export {
  AttemptTimeoutError,
  describeError,
  HttpConnectionError,
  HttpRequestError,
  HttpTimeoutError,
  isRetryHint,
  RedirectRefusedError,
  RequestBudgetExceededError,
  ResponseTooLargeError,
  RetriesExhaustedError,
  RetryAfterTooLongError,
  retryHintOf,
  UpstreamOutageError,
} from './errors.js';
export { isOutageSign, OutageCircuit, type OutageChange, type OutageOptions, type OutageStats } from './outage.js';
export {
  createFetchTransport,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RESPONSE_DEADLINE_MS,
  InvalidTransportOptionError,
  type FetchTransportOptions,
} from './fetch-transport.js';
export { TokenBucket, InvalidRateError } from './token-bucket.js';
export { AdaptiveRate, type AdaptiveRateOptions, type RateChange } from './adaptive-rate.js';
export {
  createRequestScheduler,
  InvalidSchedulerOptionError,
  OUTAGE_PROBE_OPERATION,
  type MeteredRequestScheduler,
  type RequestSchedulerOptions,
  type SchedulerStats,
} from './scheduler.js';
export { systemClock, sleep, type Clock } from './clock.js';
export { parseRetryAfter } from './retry-after.js';
