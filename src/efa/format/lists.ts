import { EfaParameterError } from '../errors.js';

/**
 * Colon-joined values (`inclMOT_0=1:2:3`, `SharingRefId=<ID>:<Operator>:<Area>`). A value holding
 * a colon would silently shift every later part, so it is rejected.
 */
export function joinColon(values: readonly (string | number)[], parameter: string): string {
  for (const value of values) {
    if (String(value).includes(':')) throw new EfaParameterError(parameter, `part "${value}" must not contain ':'`);
  }
  return values.map(String).join(':');
}

/** ORs named flags into the integer EFA expects. Unknown names are a type error at the call site. */
export function bitmask<K extends string>(flags: Readonly<Record<K, number>>, selected: readonly NoInfer<K>[]): number {
  let mask = 0;
  for (const name of selected) mask |= flags[name];
  return mask;
}

/** A bitmask over means-of-transport IDs: bit `1 << id` per ID (IDs 1–4 give 30). */
export function motBitmask(motIds: readonly number[], parameter: string): number {
  let mask = 0;
  for (const id of motIds) {
    if (!Number.isInteger(id) || id < 0 || id > 30) {
      throw new EfaParameterError(parameter, `means-of-transport ID must be an integer 0–30, got ${id}`);
    }
    mask |= 1 << id;
  }
  return mask;
}
