import { isObject, RecordProblem } from '../common.js';

/**
 * Legacy `itdDateTime` structures: `{ itdDate: { year, month, day, weekday }, itdTime: { hour,
 * minute } }`, all values strings, month and day not zero-padded. The date is the server's local
 * calendar day, which is what a notice's validity day means; no time zone is involved.
 */
export function itdDay(value: unknown, path: readonly PropertyKey[]): string | undefined {
  if (value === null || value === undefined) return undefined;
  const date = isObject(value) ? value['itdDate'] : undefined;
  if (!isObject(date)) throw new RecordProblem(path, 'expected { itdDate: { year, month, day } }');
  const parts = [date['year'], date['month'], date['day']].map((part) => (typeof part === 'number' ? String(part) : part));
  // EFA writes -1 (or 0) in every part for "not set", e.g. an open end.
  if (parts.every((part) => part === '-1' || part === '0' || part === '' || part === undefined)) return undefined;
  const [year, month, day] = parts;
  if (typeof year !== 'string' || typeof month !== 'string' || typeof day !== 'string' || ![year, month, day].every((p) => /^\d+$/.test(p))) {
    throw new RecordProblem(path, `not a date: ${JSON.stringify(date)}`);
  }
  const iso = `${year.padStart(4, '0')}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  const check = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(check.getTime()) || check.toISOString().slice(0, 10) !== iso) throw new RecordProblem(path, `not a date: ${iso}`);
  return iso;
}
