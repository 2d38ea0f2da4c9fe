import type { ServerMessage } from '../records.js';
import { isObject, restOf } from './common.js';
import { cutAtDepth } from './limits.js';

function firstText(entry: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return undefined;
}

const TEXT_KEYS = ['text', 'value', 'message'] as const;
const CODE_KEYS = ['code', 'name'] as const;
const KNOWN = ['type', 'module', ...TEXT_KEYS, ...CODE_KEYS];

/** Messages go to the run record as they are, cut at the record depth limit like a rejected record. */
function toMessage(entry: unknown): ServerMessage {
  if (!isObject(entry)) return { text: typeof entry === 'string' ? entry : JSON.stringify(cutAtDepth(entry)), attrs: {} };
  const type = firstText(entry, ['type']);
  const code = firstText(entry, CODE_KEYS);
  const module = firstText(entry, ['module']);
  return {
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
    ...(module === undefined ? {} : { module }),
    text: firstText(entry, TEXT_KEYS) ?? '',
    attrs: cutAtDepth(restOf(entry, KNOWN)) as Record<string, unknown>,
  };
}

/**
 * `message` and `systemMessages` of an answer, in whatever form they come (a string, one object,
 * or a list). Their shape is not specified, so nothing here is strict: the run only keeps them.
 */
export function parseMessages(body: unknown): ServerMessage[] {
  if (!isObject(body)) return [];
  const out: ServerMessage[] = [];
  for (const key of ['message', 'systemMessages']) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    for (const entry of Array.isArray(value) ? value : [value]) out.push(toMessage(entry));
  }
  return out;
}
