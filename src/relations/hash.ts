import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal content gives equal text whatever the field order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/** The content hash that decides whether a row changed (and so whether `changed_run` moves). */
export function contentHash(value: unknown): string {
  return createHash('sha1').update(stableJson(value)).digest('hex');
}

/** PostgreSQL text and jsonb cannot hold U+0000; an answer that contains one must still load. */
export function stripNul<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/\\u0000/g, '')) as T;
}
