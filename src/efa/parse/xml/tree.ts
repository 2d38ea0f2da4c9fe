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

interface Frame {
  readonly name: string;
  readonly node: Record<string, unknown>;
  /** Child names seen more than once: their entry is an array the parser made (made on the first repeat). */
  repeated: Set<string> | undefined;
  text: string;
  hasChildren: boolean;
}

function valueOf(frame: Frame, hasAttributes: boolean): unknown {
  if (!hasAttributes && !frame.hasChildren) return frame.text;
  // Indentation between children is not text; text beside attributes is kept as sent.
  if (frame.text !== '' && (!frame.hasChildren || frame.text.trim() !== '')) frame.node['#text'] = frame.text;
  return frame.node;
}

function attach(parent: Frame, name: string, value: unknown): void {
  parent.hasChildren = true;
  const before = parent.node[name];
  if (before === undefined) parent.node[name] = value;
  else if (parent.repeated?.has(name) === true) (before as unknown[]).push(value);
  else {
    parent.node[name] = [before, value];
    (parent.repeated ??= new Set()).add(name);
  }
}

/** Reads an XML text into an XmlBody, or throws XmlRefusedError with the reason. */
export function parseXml(text: string): XmlBody {
  const parser = new SaxesParser({ position: false });
  const stack: Frame[] = [];
  /** Whether each open element had attributes: a bare leaf becomes its text. */
  const attributed: boolean[] = [];
  let root: { name: string; value: unknown } | undefined;
  parser.on('doctype', () => {
    throw new XmlRefusedError('a DOCTYPE is not accepted (no DTD, no entity declarations: billion-laughs and external-entity bodies are refused)');
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_XML_DEPTH) throw new XmlRefusedError(`elements nested deeper than ${MAX_XML_DEPTH} levels`);
    // Without namespaces, saxes gives each tag a fresh object of attribute texts: it becomes the node as it is.
    const node = tag.attributes as Record<string, unknown>;
    let any = false;
    for (const name in node) {
      any = true;
      const value = node[name];
      if (typeof value !== 'string') node[name] = (value as { value: string }).value;
    }
    attributed.push(any);
    stack.push({ name: tag.name, node, repeated: undefined, text: '', hasChildren: false });
  });
  const addText = (t: string): void => {
    const top = stack[stack.length - 1];
    if (top !== undefined) top.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const frame = stack.pop();
    if (frame === undefined) return;
    const value = valueOf(frame, attributed.pop() === true);
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = { name: frame.name, value };
    else attach(parent, frame.name, value);
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
    throw new XmlRefusedError(`not well-formed XML (${message})`, stack.length > 0 && /unclosed|end of|unexpected end/i.test(message));
  }
  if (root === undefined) throw new XmlRefusedError('no root element', true);
  const value = root.value;
  return new XmlBody(root.name, typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { '#text': value });
}
