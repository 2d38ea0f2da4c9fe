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

/** Whether a string anywhere in a parsed value (a key too) holds U+0000. Depth is bounded by the parser's limits. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) if (key.includes('\u0000') || holdsNul(inner)) return true;
  }
  return false;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000; an answer that contains one must still load. Almost
 * no answer does: the value is walked once and only copied when it must be (a copy per record was a
 * twentieth of a large first night's CPU).
 */
export function stripNul<T>(value: T): T {
  if (!holdsNul(value)) return value;
  return JSON.parse(JSON.stringify(value).replace(/\\u0000/g, '')) as T;
}
