import { XmlBody } from './tree.js';

/**
 * Whether a body is an EFA XML answer: the reader made an XmlBody of it. The compact mobile format
 * (root `efa`) is claimed too, so that a job in another dialect is told it is XML, and the xml
 * parsers refuse it with the message naming what to use instead.
 */
export function detectXml(body: unknown): boolean {
  return body instanceof XmlBody && (body.rootName === 'itdRequest' || body.rootName === 'efa');
}
