/**
 * Issue 46: an XML answer is as hostile as a JSON one. A billion-laughs body and an external-entity
 * body are refused with a reason before anything is expanded or read; an undeclared entity, a cut
 * body and a body nested without end are refused too; a record nested deeper than the JSON bound
 * costs that record only. Encodings are decoded as declared and characters references as written.
 */
import { describe, expect, it } from 'vitest';
import { decodeReply } from '../../src/efa/classify.js';
import { xmlDialect } from '../../src/efa/dialects/xml.js';
import { EfaXmlRefusedError } from '../../src/efa/errors.js';
import { MAX_RECORD_DEPTH } from '../../src/efa/parse/limits.js';
import { ImplausibleCoordinatesError } from '../../src/efa/parse/common.js';
import { MAX_XML_DEPTH, parseXml, XmlBody, XmlRefusedError } from '../../src/efa/parse/xml/tree.js';
import { decodeBody } from '../../src/http/charset.js';

const source = { operation: 'coordInfo' as const, path: '/efa/XML_COORD_REQUEST', secrets: [] };
const decode = (body: string, headers: Record<string, string> = {}) => decodeReply({ status: 200, headers, body, durationMs: 1 }, source);

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<itdRequest><itdCoordInfoRequest><itdCoordInfo><coordInfoItemList><coordInfoItem type="STOP" id="1" name="&lol9;"/></coordInfoItemList></itdCoordInfo></itdCoordInfoRequest></itdRequest>`;

const XXE = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE itdRequest [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<itdRequest><itdCoordInfoRequest><itdCoordInfo><coordInfoItemList><coordInfoItem type="STOP" id="1" name="&xxe;"/></coordInfoItemList></itdCoordInfo></itdCoordInfoRequest></itdRequest>`;

function coordAnswer(items: string, mapName = 'WGS84[DD.ddddd]'): string {
  return `<?xml version="1.0" encoding="UTF-8"?><itdRequest><itdCoordInfoRequest><itdCoordInfo><coordInfoRequest><itdCoord x="9.1" y="48.7" mapName="${mapName}"/></coordInfoRequest><coordInfoItemList>${items}</coordInfoItemList></itdCoordInfo></itdCoordInfoRequest></itdRequest>`;
}
const item = (id: string, name: string, x: string, y: string, inner = ''): string =>
  `<coordInfoItem type="STOP" id="${id}" name="${name}"><itdPathCoordinates><coordEllipsoid>WGS84</coordEllipsoid><coordType>GEO_DECIMAL</coordType><itdCoordinateBaseElemList><itdCoordinateBaseElem><x>${x}</x><y>${y}</y></itdCoordinateBaseElem></itdCoordinateBaseElemList></itdPathCoordinates><genAttrList><genAttrElem><name>STOP_GLOBAL_ID</name><value>de:08111:${id}</value></genAttrElem></genAttrList>${inner}</coordInfoItem>`;

describe('hostile XML bodies', () => {
  it('a billion-laughs body is refused for its DOCTYPE, nothing expanded, not retried', () => {
    const before = process.memoryUsage().heapUsed;
    const error = (() => { try { decode(BILLION_LAUGHS); } catch (e) { return e; } return undefined; })();
    expect(error).toBeInstanceOf(EfaXmlRefusedError);
    expect((error as EfaXmlRefusedError).message).toContain('DOCTYPE is not accepted');
    expect((error as EfaXmlRefusedError).retryable).toBe(false);
    // Expanded, the body would be 3 GB of "lol"; refused, it costs next to nothing.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50_000_000);
  });

  it('an external-entity body is refused for its DOCTYPE: no file is read', () => {
    expect(() => decode(XXE)).toThrow(/XML answer refused: a DOCTYPE is not accepted/);
    expect(() => decode(XXE)).not.toThrow(/root:/);
  });

  it('an entity reference without a DOCTYPE is refused, naming the entity rule', () => {
    expect(() => parseXml('<itdRequest name="&xxe;"/>')).toThrow(XmlRefusedError);
    expect(() => parseXml('<itdRequest name="&xxe;"/>')).toThrow(/entity reference other than the predefined ones/);
  });

  it('a cut body is refused as truncated (worth another try); a body that is no XML at all is not', () => {
    const cut = coordAnswer(item('1', 'A', '9.1', '48.7')).slice(0, 120);
    const error = (() => { try { decode(cut); } catch (e) { return e as EfaXmlRefusedError; } return undefined; })();
    expect(error?.retryable).toBe(true);
    expect(() => decode('<itdRequest><a></b></itdRequest>')).toThrow(/not well-formed XML/);
  });

  it(`elements nested deeper than ${MAX_XML_DEPTH} levels are refused without recursion`, () => {
    const deep = `<itdRequest>${'<a>'.repeat(MAX_XML_DEPTH + 5)}${'</a>'.repeat(MAX_XML_DEPTH + 5)}</itdRequest>`;
    expect(() => parseXml(deep)).toThrow(new RegExp(`nested deeper than ${MAX_XML_DEPTH}`));
  });

  it(`a record nested deeper than ${MAX_RECORD_DEPTH} levels costs that record only, as in JSON`, () => {
    const nested = `${'<n>'.repeat(MAX_RECORD_DEPTH + 2)}x${'</n>'.repeat(MAX_RECORD_DEPTH + 2)}`;
    const body = decode(coordAnswer(item('1', 'A', '9.1', '48.7') + item('2', 'B', '9.2', '48.8', nested)));
    const parsed = xmlDialect.parse.coordInfo(body);
    expect(parsed.records.map((r) => r.id)).toEqual(['de:08111:1']);
    expect(parsed.rejects).toHaveLength(1);
    expect(parsed.rejects[0]?.reason).toMatch(/deeper than/);
  });

  it('attributes and elements named __proto__, constructor or toString are plain fields: no prototype is set', () => {
    const body = parseXml('<r __proto__="a" toString="t"><__proto__><x>1</x></__proto__><constructor>c</constructor><constructor>d</constructor><valueOf/></r>');
    expect(Object.getPrototypeOf(body.root)).toBe(Object.prototype);
    expect(Object.keys(body.root)).toEqual(['__proto__', 'toString', 'constructor', 'valueOf']);
    expect(JSON.parse(JSON.stringify(body.root))).toEqual(JSON.parse('{"__proto__":["a",{"x":"1"}],"toString":"t","constructor":["c","d"],"valueOf":""}'));
  });
});

describe('encodings, references and coordinates', () => {
  it('ISO-8859-1 from the declaration or the Content-Type; the header wins; UTF-8 otherwise', () => {
    const latin = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><itdRequest name="Mieträder"/>', 'latin1');
    expect(decodeBody(latin, undefined)).toContain('Mieträder');
    expect(decodeBody(latin, 'text/xml; charset=ISO-8859-1')).toContain('Mieträder');
    const utf8 = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><itdRequest name="Mieträder"/>', 'utf8');
    expect(decodeBody(utf8, 'text/xml')).toContain('Mieträder');
    expect(decodeBody(Buffer.from('<itdRequest name="Mieträder"/>', 'latin1'), 'text/xml; charset="iso-8859-1"')).toContain('Mieträder');
  });

  it('another charset the Encoding Standard knows is decoded as declared, not read as UTF-8; an unknown name falls back to UTF-8', () => {
    // 0x80 is € in windows-1252, 0xA4 is € in ISO-8859-15: both would be U+FFFD read as UTF-8.
    const cp1252 = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="windows-1252"?><itdRequest name="'), Buffer.from([0x80, 0xe4]), Buffer.from('"/>')]);
    expect(decodeBody(cp1252, undefined)).toContain('name="€ä"');
    const latin9 = Buffer.concat([Buffer.from('<itdRequest name="'), Buffer.from([0xa4]), Buffer.from('"/>')]);
    expect(decodeBody(latin9, 'text/xml; charset=ISO-8859-15')).toContain('name="€"');
    expect(decodeBody(Buffer.from('<itdRequest name="ä"/>', 'utf8'), 'text/xml; charset=x-no-such-charset')).toContain('name="ä"');
  });

  it('numeric references and the predefined entities are decoded; names are kept as sent otherwise', () => {
    const body = decode(coordAnswer(item('7', ' Caf&#233; &amp; Bar &lt;Nord&gt; ', '9.1', '48.7')));
    expect(xmlDialect.parse.coordInfo(body).records[0]?.name).toBe(' Café & Bar <Nord> ');
  });

  it('plain WGS84 in the echo: micro-degrees; a grid stops the run, a lone decimal value announced as micro-degrees is a reject', () => {
    const micro = decode(coordAnswer(item('1', 'A', '9123456', '48765432'), 'WGS84'));
    expect(xmlDialect.parse.coordInfo(micro).records[0]?.coord).toEqual({ lon: 9.123456, lat: 48.765432 });
    const stray = xmlDialect.parse.coordInfo(decode(coordAnswer(item('1', 'A', '9.12', '48.76'), 'WGS84')));
    expect(stray.rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/9\.12,48\.76 is not a WGS84 coordinate: a stray value/)]);
    const three = [1, 2, 3].map((n) => item(String(n), 'A', '9.12', '48.76')).join('');
    expect(() => xmlDialect.parse.coordInfo(decode(coordAnswer(three, 'WGS84')))).toThrow(ImplausibleCoordinatesError);
    expect(() => xmlDialect.parse.coordInfo(decode(coordAnswer(item('1', 'A', '3513870', '5405550'))))).toThrow(ImplausibleCoordinatesError);
    const grid = decode(coordAnswer('').replace('<coordInfoItemList>', '<coordInfoItemList><coordInfoItem type="STOP" id="1" name="A"><itdPathCoordinates><coordEllipsoid>NAV3</coordEllipsoid><itdCoordinateString>1,2</itdCoordinateString></itdPathCoordinates></coordInfoItem>'));
    expect(() => xmlDialect.parse.coordInfo(grid)).toThrow(ImplausibleCoordinatesError);
  });

  it('itdCoordinateString (coordListOutputFormat=STRING) gives the first point', () => {
    const body = decode(coordAnswer('').replace('<coordInfoItemList>', '<coordInfoItemList><coordInfoItem type="POI_POINT" id="p1" name="A"><itdPathCoordinates><coordEllipsoid>WGS84</coordEllipsoid><itdCoordinateString>9.5,48.5 9.6,48.6</itdCoordinateString></itdPathCoordinates></coordInfoItem>'));
    expect(xmlDialect.parse.coordInfo(body).records[0]).toMatchObject({ id: 'p1', coord: { lon: 9.5, lat: 48.5 }, motTypes: [] });
  });

  it("itdCoordinateString as MVV writes it (micro-degrees with .00000, `ts` as &#x20;, a genAttr name with a trailing blank), and with the separators and order its attributes name", () => {
    const mvv = (inner: string, attrs: string): string =>
      `<coordInfoItem type="STOP" id="64" name="Barthstraße" omc="9162000" placeID="1" locality="München" gisLayer="SYS-STOP" gisID="64" distance="190" stateless="64"><itdPathCoordinates><coordEllipsoid>WGS84</coordEllipsoid><coordType>GEO_DECIMAL</coordType><itdCoordinateString ${attrs}>${inner}</itdCoordinateString></itdPathCoordinates><genAttrList><genAttrElem><name>STOP_NAME_WITH_PLACE </name><value>Barthstraße</value></genAttrElem><genAttrElem><name>STOP_GLOBAL_ID </name><value>de:09162:64</value></genAttrElem><genAttrElem><name>STOP_MAJOR_MEANS</name><value>4</value></genAttrElem></genAttrList></coordInfoItem>`;
    const micro = decode(coordAnswer(mvv('11529230.00000,48140331.00000', 'decimal="." cs="," ts="&#x20;"'), 'WGS84'));
    expect(xmlDialect.parse.coordInfo(micro).records[0]).toMatchObject({ id: 'de:09162:64', globalId: 'de:09162:64', name: 'Barthstraße', coord: { lon: 11.52923, lat: 48.140331 }, motTypes: [4] });
    const other = decode(coordAnswer(mvv('48,140331;11,52923|48,2;11,6', 'decimal="," cs=";" ts="|" format="y;x"')));
    expect(xmlDialect.parse.coordInfo(other).records[0]?.coord).toEqual({ lon: 11.52923, lat: 48.140331 });
  });

  it('a JSON body is not XML, and an XML body is claimed by the xml dialect alone', () => {
    expect(decode('{"pins":[]}')).not.toBeInstanceOf(XmlBody);
    const body = decode(coordAnswer(''));
    expect(body).toBeInstanceOf(XmlBody);
    expect(xmlDialect.detect(body)).toBe(true);
    expect(xmlDialect.parse.coordInfo(body).records).toEqual([]);
  });
});
