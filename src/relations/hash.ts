import { hash } from 'node:crypto';

/**
 * The hashes' original definition: JSON.stringify with every object's keys sorted. Its text is what
 * every stored content_hash was computed from, so stableJson must give exactly this text; it stays
 * as the reference (test/entities/hash.test.ts) and for values stableJson does not walk itself.
 */
export function stableJsonByReplacer(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/**
 * A key JavaScript orders as an array index (integer keys come first, ascending, in any object). The
 * first character is looked at before the regex: almost no key of an answer starts with a digit.
 */
const isIndexKey = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
};

/**
 * The keys sorted as Array#sort sorts strings (`<`, UTF-16 code units), in place. A record's objects
 * have a few keys each: an insertion sort allocates nothing, where Array#sort's work array per call
 * was 140 MB of a 200,000-pin night's garbage (docs/benchmarks.md).
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Keys in the order JSON.stringify writes an object rebuilt from sorted entries: index keys by number, then the rest sorted. */
function orderedKeys(object: Record<string, unknown>): string[] {
  const keys = sortKeys(Object.keys(object));
  if (!keys.some(isIndexKey)) return keys;
  const index = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return [...index, ...keys.filter((k) => !isIndexKey(k))];
}

/** The text written so far: one string grown in place (V8 concatenates without copying until it is read). */
interface Out {
  text: string;
}

/** Writes a parsed-JSON value as stableJsonByReplacer would; false for anything else (toJSON, Map, bigint, …). */
function writeStable(value: unknown, out: Out): boolean {
  switch (typeof value) {
    case 'string':
      out.text += JSON.stringify(value);
      return true;
    case 'number':
      out.text += Number.isFinite(value) ? JSON.stringify(value) : 'null';
      return true;
    case 'boolean':
      out.text += value ? 'true' : 'false';
      return true;
    case 'object': {
      if (value === null) {
        out.text += 'null';
        return true;
      }
      if (Array.isArray(value)) {
        out.text += '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.text += ',';
          const item: unknown = value[i];
          if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.text += 'null';
          else if (!writeStable(item, out)) return false;
        }
        out.text += ']';
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return false;
      const object = value as Record<string, unknown>;
      out.text += '{';
      let first = true;
      for (const key of orderedKeys(object)) {
        const inner = object[key];
        if (inner === undefined || typeof inner === 'function' || typeof inner === 'symbol') continue;
        if (!first) out.text += ',';
        first = false;
        out.text += JSON.stringify(key) + ':';
        if (!writeStable(inner, out)) return false;
      }
      out.text += '}';
      return true;
    }
    default:
      return false;
  }
}

/**
 * JSON with object keys sorted, so equal content gives equal text whatever the field order. Written
 * directly (a third of a first night's hashing time went to the replacer's rebuilt objects); the
 * text is stableJsonByReplacer's, byte for byte.
 */
export function stableJson(value: unknown): string {
  const out: Out = { text: '' };
  if (writeStable(value, out)) return out.text;
  return stableJsonByReplacer(value) as string;
}

/** The content hash that decides whether a row changed (and so whether `changed_run` moves). */
export function contentHash(value: unknown): string {
  return sha1Hex(stableJson(value));
}

/** SHA-1 hex of a value's stable JSON text, for a caller that writes that text itself. */
export function sha1Hex(stableText: string): string {
  // The one-shot hash (the same SHA-1 hex as createHash().update().digest()): no Hash object per row,
  // 60 ms against 160 ms for 200,000 rows.
  return hash('sha1', stableText, 'hex');
}
