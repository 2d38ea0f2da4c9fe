import { EfaParameterError } from '../errors.js';

/**
 * A calendar day: a `YYYY-MM-DD` string, or a Date read in the machine's local time zone (so
 * `new Date()` is "today" where the job runs, matching the server's own "default today").
 */
export type CalendarDate = Date | string;

interface Ymd {
  readonly y: number;
  readonly m: number;
  readonly d: number;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function toYmd(date: CalendarDate, parameter: string): Ymd {
  if (date instanceof Date) {
    if (Number.isNaN(date.getTime())) throw new EfaParameterError(parameter, 'invalid Date');
    return { y: date.getFullYear(), m: date.getMonth() + 1, d: date.getDate() };
  }
  const match = ISO_DAY.exec(date);
  if (match === null) throw new EfaParameterError(parameter, `expected YYYY-MM-DD, got "${date}"`);
  const ymd = { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) };
  // Date.UTC rolls 2024-02-30 over to March; a round trip catches impossible days.
  const probe = new Date(Date.UTC(ymd.y, ymd.m - 1, ymd.d));
  if (probe.getUTCFullYear() !== ymd.y || probe.getUTCMonth() + 1 !== ymd.m || probe.getUTCDate() !== ymd.d) {
    throw new EfaParameterError(parameter, `no such day "${date}"`);
  }
  return ymd;
}

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** Date parts for AddInfo's component mode (`filterDateValidDay` etc.). */
export function dateComponents(date: CalendarDate, parameter = 'date'): { day: string; month: string; year: string } {
  const { y, m, d } = toYmd(date, parameter);
  return { day: pad(d, 2), month: pad(m, 2), year: pad(y, 4) };
}

/** CoordInfo's `deadline`: `YYYYMMDD`. */
export function formatDeadline(date: CalendarDate, parameter = 'deadline'): string {
  const { day, month, year } = dateComponents(date, parameter);
  return `${year}${month}${day}`;
}

/** AddInfo's date filters: `DD-MM-YYYY` — not the same format as `deadline`. */
export function formatAddInfoDate(date: CalendarDate, parameter = 'date'): string {
  const { day, month, year } = dateComponents(date, parameter);
  return `${day}-${month}-${year}`;
}

/** Days compare as strings once in YYYYMMDD form; used to check interval order. */
export function dayKey(date: CalendarDate, parameter = 'date'): string {
  return formatDeadline(date, parameter);
}
