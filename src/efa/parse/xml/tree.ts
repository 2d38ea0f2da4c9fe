import { SaxesParser } from 'saxes';

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
 * An element's value once it closes: a bare leaf (no attributes, no children) is its text; indentation
 * between children is not text; text beside attributes is kept as sent, under `#text`.
 */
function valueOf(node: Record<string, unknown>, text: string, hasAttributes: boolean, hasChildren: boolean): unknown {
  if (!hasAttributes && !hasChildren) return text;
  if (text !== '' && (!hasChildren || text.trim() !== '')) node['#text'] = text;
  return node;
}

/**
 * Puts a child's value under its name. An element's value is never an array (it is a text or an
 * object), so an array found under a name is one this function made on that name's first repeat.
 */
function attach(parent: Record<string, unknown>, name: string, value: unknown): void {
  const before = parent[name];
  if (before === undefined) parent[name] = value;
  else if (Array.isArray(before)) before.push(value);
  else parent[name] = [before, value];
}

const HAS_ATTRIBUTES = 1;
const HAS_CHILDREN = 2;

/** Reads an XML text into an XmlBody, or throws XmlRefusedError with the reason. */
export function parseXml(text: string): XmlBody {
  const parser = new SaxesParser({ position: false });
  // The open elements as parallel stacks (no object per element: an answer has hundreds of thousands).
  const names: string[] = [];
  const nodes: Record<string, unknown>[] = [];
  const texts: string[] = [];
  const flags: number[] = [];
  let root: { name: string; value: unknown } | undefined;
  parser.on('doctype', () => {
    throw new XmlRefusedError('a DOCTYPE is not accepted (no DTD, no entity declarations: billion-laughs and external-entity bodies are refused)');
  });
  parser.on('opentag', (tag) => {
    const depth = nodes.length;
    if (depth >= MAX_XML_DEPTH) throw new XmlRefusedError(`elements nested deeper than ${MAX_XML_DEPTH} levels`);
    // Without namespaces, saxes gives each tag a fresh object of attribute texts: it becomes the node as it is.
    const node = tag.attributes as Record<string, unknown>;
    let flag = 0;
    for (const name in node) {
      flag = HAS_ATTRIBUTES;
      const value = node[name];
      if (typeof value !== 'string') node[name] = (value as { value: string }).value;
    }
    if (depth > 0) flags[depth - 1] = (flags[depth - 1] as number) | HAS_CHILDREN;
    names.push(tag.name);
    nodes.push(node);
    texts.push('');
    flags.push(flag);
  });
  const addText = (t: string): void => {
    const top = texts.length - 1;
    if (top >= 0) texts[top] += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const node = nodes.pop();
    if (node === undefined) return;
    const name = names.pop() as string;
    const flag = flags.pop() as number;
    const value = valueOf(node, texts.pop() as string, (flag & HAS_ATTRIBUTES) !== 0, (flag & HAS_CHILDREN) !== 0);
    const parent = nodes[nodes.length - 1];
    if (parent === undefined) root = { name, value };
    else attach(parent, name, value);
  });
  parser.on('error', (error) => {
    throw error;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof XmlRefusedError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/undefined entity|entity/i.test(message)) throw new XmlRefusedError(`an entity reference other than the predefined ones is not accepted (${message})`);
    throw new XmlRefusedError(`not well-formed XML (${message})`, nodes.length > 0 && /unclosed|end of|unexpected end/i.test(message));
  }
  if (root === undefined) throw new XmlRefusedError('no root element', true);
  const value = root.value;
  return new XmlBody(root.name, typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { '#text': value });
}
