import type { CopyValue } from '../relations/index.js';

/**
 * PostgreSQL's COPY text format: one line per row, tab between fields, `\N` for null, and
 * backslash, tab, newline and carriage return escaped. What pg-copy-streams and PGlite's
 * COPY FROM '/dev/blob' both read.
 */
const needsEscape = /[\\\t\n\r]/;

export function copyField(v: CopyValue): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`COPY: ${v} is not a finite number`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // Most fields need no escape: one scan instead of four replacements.
  if (!needsEscape.test(v)) return v;
  return v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/**
 * Rows as COPY text in chunks of about `chunkChars`, so a large batch is never one huge string.
 * Each line is appended field by field: no array of escaped fields and no joined line per row.
 * `fields` may hand back the same array for every row (rowFields): it is read whole before the
 * next row is asked for.
 */
export function* copyText<Row>(rows: Iterable<Row>, fields: (row: Row) => readonly CopyValue[], chunkChars = 256_000): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    const values = fields(row);
    for (let i = 0; i < values.length; i++) {
      if (i > 0) chunk += '\t';
      chunk += copyField(values[i] ?? null);
    }
    chunk += '\n';
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * `fields` for copyText from one reader per column, filling one array for every row: no array, nor
 * the spread of a column list, per row (a first night's COPY lines are built for every pin).
 */
export function rowFields<Row>(readers: readonly ((row: Row) => CopyValue)[]): (row: Row) => readonly CopyValue[] {
  const values: CopyValue[] = new Array<CopyValue>(readers.length).fill(null);
  return (row) => {
    for (let i = 0; i < readers.length; i++) values[i] = readers[i]!(row);
    return values;
  };
}
