/**
 * The simulator's clock: which instant a request is answered as of, and that instant as local time.
 * Every simulated deployment lies in Central Europe (the generated city is Stuttgart, the real data
 * Herrenberg, Karlsruhe, Oslo and Almere), so local time is CET/CEST by the EU rule, computed here
 * rather than through the platform's time-zone database: the answer for a clock is then the same
 * on every machine.
 */
import { SimulatorOptionError } from './errors.js';

const MINUTE_MS = 60_000;
/** ISO 8601 date-time with seconds optional, fraction optional, and a zone (Z or ±hh:mm) required. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** A fixed clock from its ISO 8601 text (`2026-11-24T10:00:00+01:00`); a zone is required. */
export function parseClock(text: string, option = 'clock'): Date {
  const at = new Date(text);
  if (!ISO_INSTANT.test(text) || Number.isNaN(at.getTime())) {
    throw new SimulatorOptionError(option, `expected an ISO 8601 instant with a zone, e.g. 2026-11-24T10:00:00+01:00, got "${text}"`);
  }
  return at;
}

/** Minutes since the epoch, as a whole number (the resolution of the moving world). */
export const epochMinutes = (at: Date): number => Math.floor(at.getTime() / MINUTE_MS);

/** The last Sunday of a month (UTC day number in the month). */
function lastSunday(year: number, month: number): number {
  const last = new Date(Date.UTC(year, month + 1, 0));
  return last.getUTCDate() - last.getUTCDay();
}

/** Minutes to add to UTC for Central European time at this UTC minute: 60, or 120 in summer. */
export function cetOffsetMinutes(utcMinute: number): number {
  const d = new Date(utcMinute * MINUTE_MS);
  const y = d.getUTCFullYear();
  // Summer time runs from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of October.
  const start = Date.UTC(y, 2, lastSunday(y, 2), 1) / MINUTE_MS;
  const end = Date.UTC(y, 9, lastSunday(y, 9), 1) / MINUTE_MS;
  return utcMinute >= start && utcMinute < end ? 120 : 60;
}

export interface LocalTime {
  /** Hours since local midnight, fractional (10.5 = 10:30). */
  readonly hour: number;
  /** 0 = Sunday … 6 = Saturday. */
  readonly weekday: number;
}

/** Local (CET/CEST) time of day and weekday of a UTC minute. */
export function localTime(utcMinute: number): LocalTime {
  const local = utcMinute + cetOffsetMinutes(utcMinute);
  const day = Math.floor(local / 1440);
  const minuteOfDay = local - day * 1440;
  // 1970-01-01 was a Thursday (4).
  return { hour: minuteOfDay / 60, weekday: (((day + 4) % 7) + 7) % 7 };
}
