import type { ServerMessage } from '../../records.js';
import { isObject } from '../common.js';
import { XmlBody } from './tree.js';

/** How far below the root `itdMessage` elements are looked for (itdOdvName holds one at depth 4). */
const MESSAGE_DEPTH = 6;

/**
 * `itdMessage` elements (`type`, `module`, `code` attributes, text) anywhere near the top of the
 * answer, such as StopFinder's -8010/-8011 notes: walked with an explicit stack to a fixed depth.
 */
export function parseXmlMessages(body: unknown): ServerMessage[] {
  if (!(body instanceof XmlBody)) return [];
  const out: ServerMessage[] = [];
  const stack: [Record<string, unknown>, number][] = [[body.root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [Record<string, unknown>, number];
    for (const [name, value] of Object.entries(node)) {
      const entries = Array.isArray(value) ? value : [value];
      for (const entry of entries) {
        if (name === 'itdMessage') out.push(messageOf(entry));
        else if (isObject(entry) && depth < MESSAGE_DEPTH) stack.push([entry, depth + 1]);
      }
    }
  }
  return out;
}

function messageOf(entry: unknown): ServerMessage {
  if (!isObject(entry)) return { text: typeof entry === 'string' ? entry : '', attrs: {} };
  const attr = (key: string): string | undefined => (typeof entry[key] === 'string' && entry[key] !== '' ? (entry[key] as string) : undefined);
  const [type, code, module] = [attr('type'), attr('code'), attr('module')];
  return {
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
    ...(module === undefined ? {} : { module }),
    text: typeof entry['#text'] === 'string' ? entry['#text'] : '',
    attrs: {},
  };
}
