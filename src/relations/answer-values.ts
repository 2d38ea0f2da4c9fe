import { instantOfText } from '../util/time-zone.js';
/** Readers of answer values for the snapshot relations' rows: each returns null for what it cannot read (never a guess). */

export type Attrs = Readonly<Record<string, unknown>>;

export const objectAt = (a: Attrs, name: string): Attrs => {
  const v = a[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Attrs) : {};
};

export function text(...values: unknown[]): string | null {
  for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v;
  return null;
}

export function num(...values: unknown[]): number | null {
  for (const v of values) {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  }
  return null;
}

export function int(...values: unknown[]): number | null {
  const n = num(...values);
  return n === null ? null : Math.round(n);
}

/**
 * `measuredAt` as an instant. The schema writes UTC (`...Z`); an offset is honoured; a time without
 * one (`2026-11-24T09:58:00`, as vendors send it) is the deployment's wall clock, read in its zone
 * (the job's timeZone or its region's; util/time-zone.ts). sql/022's efa.parse_instant(text, zone)
 * reads the same way for efa.current_parking.
 */
export function instantOf(value: unknown, timeZone?: string): Date | null {
  return instantOfText(value, timeZone);
}

