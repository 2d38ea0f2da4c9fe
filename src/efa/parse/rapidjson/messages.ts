import type { ServerMessage } from '../../records.js';
import { isObject, restOf } from '../common.js';
import { cutAtDepth } from '../limits.js';
import { parseMessages } from '../messages.js';

/**
 * rapidJSON server notes. EFA writes `systemMessages` as a list of {type, module, code, text}
 * (NVBW: `{"type":"error","module":"BROKER","code":-8011}` next to normal results, so a note, not a
 * failure); the TfNSW gateway documents `systemMessages.responseMessages[]` and an `error`
 * object with a `message`. All of them are returned for the run record; none fails the answer.
 */
export function parseRapidMessages(body: unknown): ServerMessage[] {
  if (!isObject(body)) return [];
  const system = body['systemMessages'];
  const entries = isObject(system) && Array.isArray(system['responseMessages']) ? system['responseMessages'] : system;
  const out = parseMessages({ message: body['message'], systemMessages: entries });
  const error = body['error'];
  if (isObject(error) && typeof error['message'] === 'string') {
    out.push({ type: 'error', text: error['message'], attrs: cutAtDepth(restOf(error, ['message'])) as Record<string, unknown> });
  }
  return out;
}
