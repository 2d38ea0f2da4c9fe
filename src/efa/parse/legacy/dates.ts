import { instantOfWall } from '../../../util/time-zone.js';
import { isObject, RecordProblemError } from '../common.js';

/**
 * Legacy `itdDateTime` structures: `{ itdDate: { year, month, day, weekday }, itdTime: { hour,
 * minute } }`, all values strings, month and day not zero-padded. The date is the server's local
 * calendar day, which is what a notice's validity day means; no time zone is involved.
 */
export function itdDay(value: unknown, path: readonly PropertyKey[]): string | undefined {
  if (value === null || value === undefined) return undefined;
  const date = isObject(value) ? value['itdDate'] : undefined;
  if (!isObject(date)) throw new RecordProblemError(path, 'expected { itdDate: { year, month, day } }');
  const parts = [date['year'], date['month'], date['day']].map((part) => (typeof part === 'number' ? String(part) : part));
  // EFA writes -1 (or 0) in every part for "not set", e.g. an open end.
  if (parts.every((part) => part === '-1' || part === '0' || part === '' || part === undefined)) return undefined;
  const [year, month, day] = parts;
  if (typeof year !== 'string' || typeof month !== 'string' || typeof day !== 'string' || ![year, month, day].every((p) => /^\d+$/.test(p))) {
    throw new RecordProblemError(path, `not a date: ${JSON.stringify(date)}`);
  }
  const iso = `${year.padStart(4, '0')}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  const check = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(check.getTime()) || check.toISOString().slice(0, 10) !== iso) throw new RecordProblemError(path, `not a date: ${iso}`);
  return iso;
}

/**
 * The instant of a legacy `itdDateTime`: its day and `itdTime` (hour, minute) are the server's wall
 * clock, read in the deployment's zone (ParseContext.timeZone). Undefined when there is no day, no
 * time (-1 or missing), no zone, or a time that is not one (`24:00`, text): the notice keeps its days,
 * which are what its validity means, rather than being rejected for a time it did not need.
 */
export function itdInstant(value: unknown, path: readonly PropertyKey[], zone: string | undefined): string | undefined {
  const day = itdDay(value, path);
  if (day === undefined || zone === undefined || !isObject(value)) return undefined;
  const time = value['itdTime'];
  if (!isObject(time)) return undefined;
  const [hour, minute] = [time['hour'], time['minute']].map((part) => (typeof part === 'number' ? String(part) : part));
  if ([hour, minute].every((part) => part === '-1' || part === '' || part === undefined)) return undefined;
  if (typeof hour !== 'string' || typeof minute !== 'string' || !/^\d{1,2}$/.test(hour) || !/^\d{1,2}$/.test(minute)) return undefined;
  const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
  return instantOfWall({ y, mo, d, h: Number(hour), mi: Number(minute) }, zone)?.toISOString();
}
