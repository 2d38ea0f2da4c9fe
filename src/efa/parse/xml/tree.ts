import { SaxesParser } from 'saxes';
import { setField } from '../set-field.js';

/**
 * An EFA XML answer read into plain objects, the way the JSON dialects receive theirs: an element
 * is an object of its attributes (text values as sent) and its child elements (one child under its
 * name, repeated children as an array under it), its own text under `#text`; a leaf element with
 * neither attributes nor children is its text. The reader is saxes (a streaming, non-validating,
 * conformance-checking parser): it never loads a DTD, knows only the five predefined entities and
 * numeric character references, and fetches nothing. A DOCTYPE is refused outright, so a
 * billion-laughs or an external-entity body costs one refused answer and nothing more.
 */
export class XmlBody {
  constructor(
    /** The root element's name: `itdRequest` (the full format), `efa` (the compact mobile format). */
    readonly rootName: string,
    /** The root element as plain objects. */
    readonly root: Readonly<Record<string, unknown>>,
  ) {}
}

/** Why an XML body was not read: the reason names what was refused. */
export class XmlRefusedError extends Error {
  constructor(
    readonly reason: string,
    /** The body ended inside an element: a cut answer, worth another try. */
    readonly truncated = false,
  ) {
    super(reason);
    this.name = 'XmlRefusedError';
  }
}

/**
 * Deepest element nesting a body may have. Records are bounded on their own (MAX_RECORD_DEPTH in
 * limits.ts, checked per record as for JSON); this only keeps a hostile body's skeleton finite.
 */
export const MAX_XML_DEPTH = 1000;

/** Whether a text looks like an XML document rather than JSON: its first non-blank character is `<`. */
export function looksLikeXml(text: string): boolean {
  for (let i = 0; i < text.length && i < 4096; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0xfeff || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x3c;
  }
  return false;
}

/**
 * An element's value once it closes: a bare leaf (no attributes, no children: no node was made for
 * it) is its text; indentation between children is not text; text beside attributes is kept as sent,
 * under `#text`.
 */
function valueOf(node: Record<string, unknown> | undefined, text: string, hasChildren: boolean): unknown {
  if (node === undefined) return text;
  if (text !== '' && (!hasChildren || text.trim() !== '')) node['#text'] = text;
  return node;
}

/**
 * Puts a child's value under its name. An element's value is never an array (it is a text or an
 * object), so an array found under a name is one this function made on that name's first repeat.
 */
function attach(parent: Record<string, unknown>, name: string, value: unknown): void {
  // A node's own fields are texts, nodes and arrays: a function is Object.prototype's (`toString`, ...), not a child.
  let before = parent[name];
  if (typeof before === 'function' || (name === '__proto__' && !Object.hasOwn(parent, name))) before = undefined;
  if (before === undefined) setField(parent, name, value);
  else if (Array.isArray(before)) before.push(value);
  else setField(parent, name, [before, value]);
}

/**
 * A character reference to a UTF-16 surrogate (`&#xD800;`, `&#55296;`): no XML character, so saxes
 * refuses the whole body for it, yet it is what a server's UTF-16 truncation of an escaped name writes.
 */
const SURROGATE_REFERENCE = /&#(?:[xX]0*[dD][89a-fA-F][0-9a-fA-F]{2}|0*(?:5529[6-9]|55[3-9]\d\d|56\d{3}|57[0-2]\d\d|573[0-3]\d|5734[0-3]));/g;

/**
 * The text with every character reference to a surrogate made one to U+FFFD: the answer is read and
 * the field holds U+FFFD, as a lone surrogate in a JSON answer becomes (efa/text/storable.ts), rather
 * than one broken name costing the whole answer.
 */
export function withoutSurrogateReferences(text: string): string {
  return text.includes('&#') ? text.replace(SURROGATE_REFERENCE, '&#xFFFD;') : text;
}

/** Reads an XML text into an XmlBody, or throws XmlRefusedError with the reason. */
export function parseXml(text: string): XmlBody {
  const parser = new SaxesParser({ position: false });
  // The open elements as parallel stacks (no object per element: an answer has hundreds of thousands).
  // An element's node is made on its first attribute or child: most elements are bare leaves (x, y, value).
  const nodes: (Record<string, unknown> | undefined)[] = [];
  const texts: string[] = [];
  const hasChildren: boolean[] = [];
  let root: { name: string; value: unknown } | undefined;
  parser.on('doctype', () => {
    throw new XmlRefusedError('a DOCTYPE is not accepted (no DTD, no entity declarations: billion-laughs and external-entity bodies are refused)');
  });
  parser.on('opentag', (tag) => {
    const depth = hasChildren.length;
    if (depth >= MAX_XML_DEPTH) throw new XmlRefusedError(`elements nested deeper than ${MAX_XML_DEPTH} levels`);
    // saxes keeps attributes in a null-prototype object, which V8 holds as a slow dictionary: every
    // later read of the node (zod, the readers, the depth check) paid for it. An object literal filled
    // in the answer's attribute order shares one fast shape across all elements of a kind, as JSON.parse's do.
    const attributes = tag.attributes as Record<string, string | { value: string }>;
    let node: Record<string, unknown> | undefined;
    for (const name in attributes) {
      node ??= {};
      const value = attributes[name] as string | { value: string };
      const text = typeof value === 'string' ? value : value.value;
      setField(node, name, text);
    }
    if (depth > 0) hasChildren[depth - 1] = true;
    nodes.push(node);
    texts.push('');
    hasChildren.push(false);
  });
  const addText = (t: string): void => {
    const top = texts.length - 1;
    if (top >= 0) texts[top] += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag) => {
    if (hasChildren.length === 0) return;
    const value = valueOf(nodes.pop(), texts.pop() as string, hasChildren.pop() as boolean);
    const top = nodes.length - 1;
    if (top < 0) root = { name: tag.name, value };
    else attach((nodes[top] ??= {}), tag.name, value);
  });
  parser.on('error', (error) => {
    throw error;
  });
  try {
    parser.write(withoutSurrogateReferences(text)).close();
  } catch (error) {
    if (error instanceof XmlRefusedError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/undefined entity|entity/i.test(message)) throw new XmlRefusedError(`an entity reference other than the predefined ones is not accepted (${message})`);
    throw new XmlRefusedError(`not well-formed XML (${message})`, hasChildren.length > 0 && /unclosed|end of|unexpected end/i.test(message));
  }
  if (root === undefined) throw new XmlRefusedError('no root element', true);
  const value = root.value;
  return new XmlBody(root.name, typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { '#text': value });
}
