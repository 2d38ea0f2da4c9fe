/** Pieces every legacy body shares: the `parameters` header, name/value lists, `itdDateTime`. */

/** Legacy answers open with this name/value list (see the MVV samples: serverID EMS_, calcTime, ...). */
export const PARAMETERS: readonly { name: string; value: string }[] = [
  { name: 'serverID', value: 'SIM_' },
  { name: 'requestID', value: '0' },
  { name: 'sessionID', value: '0' },
  { name: 'calcTime', value: '0.000' },
];

export const pair = (name: string, value: string): { name: string; value: string } => ({ name, value });

/** Legacy writes every scalar as a string; JSON null becomes "". */
export const text = (value: string | number | boolean | null | undefined): string => (value === null || value === undefined ? '' : String(value));

export const isScalar = (value: unknown): value is string | number | boolean | null =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * `{ itdDate: { year, month, day, weekday }, itdTime: { hour, minute } }` for a `YYYY-MM-DD` day,
 * unpadded as in the MVV departure bodies (`"month": "1"`); weekday 1 = Sunday, as EFA counts.
 */
export function itdDateTime(day: string, hour: number, minute: number): Record<string, unknown> {
  const [year = '0', month = '0', date = '0'] = day.split('-');
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay() + 1;
  return {
    itdDate: { year: String(Number(year)), month: String(Number(month)), day: String(Number(date)), weekday: String(weekday) },
    itdTime: { hour: String(hour), minute: String(minute) },
  };
}

/** `${lon},${lat}` at full precision: legacy writes x,y, and rounding would change the records. */
export const coords = (lon: number, lat: number): string => `${lon},${lat}`;
