/**
 * A `Retry-After` header value in milliseconds from `nowMs` (wall-clock epoch ms, as HTTP dates are),
 * or undefined when absent or unreadable. Both forms of RFC 9110 are accepted: delay-seconds and an
 * HTTP-date; a date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse would take "1.5" or "-3" as dates; only accept something shaped like an HTTP-date.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
