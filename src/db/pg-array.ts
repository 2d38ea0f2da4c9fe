/**
 * PostgreSQL array literals for values passed inside an `unnest` column: a row's int[] or text[]
 * travels as one text cell and is cast back in SQL, because unnest cannot take ragged 2-D arrays.
 */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

export function intArrayLiteral(values: readonly number[]): string {
  return `{${values.map((v) => String(Math.trunc(v))).join(',')}}`;
}
