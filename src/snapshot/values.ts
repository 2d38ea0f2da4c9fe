/** Readers of answer values for the snapshot rows: each returns null for what it cannot read (never a guess). */

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

/** An instant with its zone (`Z` or an offset), as the published schema's dateTime writes it. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * `measuredAt` as an instant. The schema writes UTC (`...Z`); an offset is honoured. A time
 * without a zone names no instant (the answer does not say whose clock), so it is null: the text
 * stays in the pin's attrs. sql/011's efa.parse_instant reads the same way for efa.current_parking.
 */
export function instantOf(value: unknown): Date | null {
  if (typeof value !== 'string' || !INSTANT.test(value.trim())) return null;
  const at = new Date(value.trim());
  return Number.isNaN(at.getTime()) ? null : at;
}

