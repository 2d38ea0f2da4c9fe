import type { Dialect } from '../dialect.js';
import { jsonDialect } from './json.js';
import { legacyDialect } from './legacy.js';
import { rapidJsonDialect } from './rapidjson.js';

/** The response dialects efa-sync speaks; a job picks one by name (or `auto`). */
export const DIALECT_NAMES = ['json', 'legacy', 'rapidjson'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

export const dialects: Readonly<Record<DialectName, Dialect>> = {
  json: jsonDialect,
  legacy: legacyDialect,
  rapidjson: rapidJsonDialect,
};
