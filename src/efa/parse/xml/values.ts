import { isObject, ShapeMismatchError, UnreadFormatError } from '../common.js';
import { XmlBody } from './tree.js';

/**
 * Reading helpers over an XmlBody's plain objects: an element with one child has it under its name,
 * repeated children are an array, a bare leaf is its text, attribute values are text as sent.
 */

/** The compact mobile format (root `efa`, two-letter element names) is another dialect, not read here. */
export const COMPACT_REFUSAL =
  'the compact mobile XML format (root <efa>) is not read: point baseUrl at the deployment\'s full XML interface (root <itdRequest>) with "dialect": "xml", or use "dialect": "legacy"';

/** Every element named so under `value`: none, one or several, as a list. */
export function list(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/** An element as an object; a bare leaf (`<genAttrList/>`) has no attributes or children. */
export function element(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** An element's text: a bare leaf is its text, an element with attributes keeps it under `#text`. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value['#text'] === 'string') return value['#text'];
  return isObject(value) ? '' : undefined;
}

/** An attribute or text that means "no value" when blank (or one of `absent`, e.g. "-1" for ids). */
export function present(value: unknown, absent: readonly string[] = ['']): string | undefined {
  if (typeof value !== 'string') return undefined;
  return absent.includes(value.trim()) ? undefined : value;
}

/**
 * `genAttrList/genAttrElem` name/value pairs as a lookup (the first of a name wins; values as sent).
 * Names are trimmed: MVV's answers write `<name>STOP_NAME_WITH_PLACE </name>`, and a trailing blank
 * must not hide a STOP_GLOBAL_ID.
 */
export function genAttrs(record: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of list(element(record['genAttrList'])['genAttrElem'])) {
    const name = textOf(element(entry)['name'])?.trim();
    if (name === undefined || name === '' || out.has(name)) continue;
    out.set(name, textOf(element(entry)['value']) ?? '');
  }
  return out;
}

/**
 * The request element of a full-format answer (`itdCoordInfoRequest`, ...), or a ShapeMismatchError
 * that says what came instead: the compact format, JSON, another request's answer.
 */
export function requestElement(body: unknown, name: string): Record<string, unknown> {
  if (!(body instanceof XmlBody)) throw new ShapeMismatchError([], 'expected an XML answer (root <itdRequest>)');
  if (body.rootName === 'efa') throw new UnreadFormatError(COMPACT_REFUSAL);
  if (body.rootName !== 'itdRequest') throw new ShapeMismatchError([], `expected the root <itdRequest>, got <${body.rootName}>`);
  const request = body.root[name];
  if (!isObject(request)) throw new ShapeMismatchError(['itdRequest', name], request === undefined ? 'missing' : 'expected an element with content');
  return request;
}

/** The element under `path` (each step one child); a missing step is a ShapeMismatchError naming it. */
export function descend(from: Record<string, unknown>, at: readonly string[], path: readonly string[]): Record<string, unknown> {
  let node = from;
  const walked = [...at];
  for (const step of path) {
    walked.push(step);
    const next = node[step];
    if (next === undefined) throw new ShapeMismatchError(walked, 'missing');
    node = element(Array.isArray(next) ? next[0] : next);
  }
  return node;
}
