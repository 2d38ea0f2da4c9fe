import { ConfigError } from '../errors.js';
import { parseClock } from '../sim/clock.js';

/** `--now`'s environment variable. */
export const NOW_ENV = 'EFA_NOW';

/**
 * `--now`: an ISO 8601 instant with a zone (the format of `sim --clock`), a real calendar time
 * (no 31 April, no 25:00, which Date would roll over silently).
 */
export function parseNow(text: string, name: string): Date {
  const parts = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  const [year, month, day, hour, minute, second] = (parts?.slice(1) ?? []).map((p) => Number(p ?? 0));
  const calendar = parts !== null && month !== undefined && month >= 1 && month <= 12 && day !== undefined && year !== undefined &&
    day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate() && (hour ?? 0) < 24 && (minute ?? 0) < 60 && (second ?? 0) < 60;
  const bad = new ConfigError(`${name}: expected an ISO 8601 time with a zone, e.g. 2026-11-24T08:00:00+01:00 or 2026-11-24T07:00:00Z, got "${text}"`, name);
  if (!calendar) throw bad;
  try {
    return parseClock(text, name);
  } catch {
    throw bad;
  }
}
