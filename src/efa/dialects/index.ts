import type { Dialect } from '../dialect.js';
import { createAutoDialect } from './auto.js';
import { jsonDialect } from './json.js';
import { legacyDialect } from './legacy.js';
import { rapidJsonDialect } from './rapidjson.js';
import { xmlDialect } from './xml.js';

/** The response dialects efa-sync speaks; a job picks one by name (or `auto`). */
export const DIALECT_NAMES = ['json', 'legacy', 'rapidjson', 'xml', 'auto'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/** A fresh profile per run: `auto` remembers what it detected. */
export function dialectFor(name: DialectName): Dialect {
  return name === 'auto' ? createAutoDialect() : dialects[name];
}

export { createAutoDialect, type AutoDialect } from './auto.js';

export const dialects: Readonly<Record<Exclude<DialectName, 'auto'>, Dialect>> = {
  json: jsonDialect,
  legacy: legacyDialect,
  rapidjson: rapidJsonDialect,
  xml: xmlDialect,
};
