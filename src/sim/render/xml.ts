/**
 * EFA's native XML (`outputFormat=XML`), shaped like the real answers in efa-samples/xml (root
 * itdRequest, the same element and attribute names), from the same neutral results as the JSON
 * renderers, so a sweep in any dialect yields the same tables. The renderers build element trees;
 * `encode` writes them, in UTF-8 or, for a deployment that declares it, ISO-8859-1.
 */
import type { Dialect } from './efa-json.js';
import { el, serialise, type XmlNode } from './xml/common.js';
import { renderAddInfo, renderOpArea, renderServingLines, renderStopFinder } from './xml/lists.js';
import { renderPins } from './xml/pins.js';

const isNode = (body: unknown): body is XmlNode => typeof body === 'object' && body !== null && typeof (body as { name?: unknown }).name === 'string';

export function xmlDialectOf(encoding: 'utf-8' | 'latin1'): Dialect {
  return {
    coord: renderPins,
    stopFinder: renderStopFinder,
    servingLines: renderServingLines,
    addInfo: renderAddInfo,
    opArea: renderOpArea,
    error: (status, message) => el('itdRequest', {}, [el('itdMessage', { type: 'error', code: status }, [], message)]),
    encode: (body) => {
      const text = isNode(body) ? serialise(body, encoding === 'latin1' ? 'ISO-8859-1' : 'UTF-8') : JSON.stringify(body);
      return encoding === 'latin1'
        ? { body: Buffer.from(text, 'latin1'), contentType: 'text/xml; charset=ISO-8859-1' }
        : { body: text, contentType: 'text/xml; charset=UTF-8' };
    },
  };
}

export const xmlRender: Dialect = xmlDialectOf('utf-8');
