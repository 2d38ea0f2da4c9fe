import type { ServerMessage } from '../../records.js';
import { isObject, restOf } from '../common.js';
import { cutAtDepth } from '../limits.js';
import { parseMessages } from '../messages.js';

/** Objects of a legacy answer that carry their own `message` (the MVV StopFinder sample: `stopFinder.message`). */
const HOLDERS = ['stopFinder', 'servingLines', 'additionalInformation', 'dm'] as const;

const isPair = (entry: unknown): entry is { name: string; value: unknown } =>
  isObject(entry) && typeof entry['name'] === 'string' && 'value' in entry && Object.keys(entry).length === 2;

/**
 * Legacy writes ONE message as a list of name/value pairs:
 * `[{name:"code",value:"-8011"},{name:"error",value:""},{name:"type",value:""},{name:"module",value:"BROKER"}]`.
 * That list is folded into one message; codes such as -8011 next to results are notes, not failures.
 */
function foldPairs(pairs: readonly { name: string; value: unknown }[]): ServerMessage {
  const fields: Record<string, unknown> = {};
  for (const { name, value } of pairs) fields[name] = value;
  const text = (key: string): string | undefined => {
    const value = fields[key];
    return (typeof value === 'string' && value !== '') || typeof value === 'number' ? String(value) : undefined;
  };
  const [type, code, module] = [text('type'), text('code'), text('module')];
  return {
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
    ...(module === undefined ? {} : { module }),
    text: text('error') ?? text('text') ?? text('value') ?? '',
    attrs: cutAtDepth(restOf(fields, ['type', 'code', 'module', 'error', 'text', 'value'])) as Record<string, unknown>,
  };
}

function messagesOf(holder: Record<string, unknown>): ServerMessage[] {
  const value = holder['message'];
  if (Array.isArray(value) && value.length > 0 && value.every(isPair)) return [foldPairs(value)];
  return parseMessages(holder);
}

export function parseLegacyMessages(body: unknown): ServerMessage[] {
  if (!isObject(body)) return [];
  const out = messagesOf(body);
  for (const key of HOLDERS) {
    const holder = body[key];
    if (isObject(holder)) out.push(...messagesOf(holder));
  }
  return out;
}
