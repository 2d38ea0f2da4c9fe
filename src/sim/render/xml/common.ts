/**
 * A small element tree the XML renderers build and one writer for it. Attribute values and text are
 * escaped (the five predefined entities, and numeric references for control characters); nothing
 * else is needed to write what EFA servers write.
 */
export interface XmlNode {
  readonly name: string;
  readonly attrs?: Readonly<Record<string, string | number | undefined>>;
  readonly children?: readonly XmlNode[];
  readonly text?: string;
}

export const el = (name: string, attrs: XmlNode['attrs'] = {}, children: readonly XmlNode[] = [], text?: string): XmlNode =>
  text === undefined ? { name, attrs, children } : { name, attrs, children, text };

const SPECIAL = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const EVERY_SPECIAL = new RegExp(SPECIAL.source, 'g');

// Most values need no escaping: the test alone is much cheaper than a replace with a callback.
const escape = (value: string, quote: boolean): string =>
  !SPECIAL.test(value)
    ? value
    : value.replace(EVERY_SPECIAL, (c) =>
        c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? (quote ? '&quot;' : c) : `&#${c.charCodeAt(0)};`,
      );

// One string grown by += (V8 keeps it as a rope until it is read): an answer of 100,000 items has
// over a million elements, and the benches' nights in xml should measure the reader, not this writer.
function write(node: XmlNode, out: string): string {
  out += `<${node.name}`;
  const attrs = node.attrs ?? {};
  for (const key in attrs) {
    const value = attrs[key];
    if (value !== undefined) out += ` ${key}="${typeof value === 'number' ? String(value) : escape(value, true)}"`;
  }
  const children = node.children ?? [];
  if (children.length === 0 && (node.text === undefined || node.text === '')) return `${out}/>`;
  out += '>';
  for (const child of children) out = write(child, out);
  if (node.text !== undefined) out += escape(node.text, false);
  return `${out}</${node.name}>`;
}

/** The document text, with the declaration naming its encoding. */
export function serialise(root: XmlNode, encoding = 'UTF-8'): string {
  return write(root, `<?xml version="1.0" encoding="${encoding}"?>`);
}

/** `<itdRequest>` as the real answers open it, around one request element. */
export const itdRequest = (request: XmlNode): XmlNode =>
  el('itdRequest', { version: '10.6.33.33', language: 'de', lengthUnit: 'METER', sessionID: '0', serverID: 'SIM_', virtDir: 'sim' }, [request]);

/** `genAttrList` of name/value pairs, as CoordInfo items carry it. */
export const genAttrList = (pairs: readonly [string, string][]): XmlNode =>
  el('genAttrList', {}, pairs.map(([name, value]) => el('genAttrElem', {}, [el('name', {}, [], name), el('value', {}, [], value)])));

/** An `itdDateTime` for a `YYYY-MM-DD` day (weekday 1 = Sunday, as EFA counts). */
export function itdDateTime(day: string, hour: number, minute: number): XmlNode {
  const [year = '0', month = '0', date = '0'] = day.split('-');
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay() + 1;
  return el('itdDateTime', {}, [el('itdDate', { year, month, day: date, weekday }), el('itdTime', { hour, minute })]);
}
