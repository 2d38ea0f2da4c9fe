/**
 * Issue 46: the AddInfo answer of STA and the `itdServingLines` block of the VGN and VRR departure
 * answers, read by the xml dialect; expected values are read off the text with regular expressions.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeReply } from '../../src/efa/classify.js';
import { xmlDialect } from '../../src/efa/dialects/xml.js';
import { decodeBody } from '../../src/http/charset.js';
import { SAMPLES_DIR } from './samples.js';

const XML_DIR = `${SAMPLES_DIR}/xml`;
const read = (file: string): string => decodeBody(readFileSync(`${XML_DIR}/${file}`), undefined);
const decode = (text: string) => decodeReply({ status: 200, headers: {}, body: text, durationMs: 1 }, { operation: 'addInfo', path: '/x', secrets: [] });

describe.skipIf(!existsSync(XML_DIR))('real XML answers of AddInfo and ServingLines', () => {
  it('STA AddInfo: every notice with its id, type, priority, validity days and line keys', () => {
    const text = read('addinfo-ta-samuelece-sta-TRUNCATED.xml');
    const tags = [...text.matchAll(/<itdAdditionalTravelInformation ([^>]*)>/g)].map((m) => m[1] ?? '');
    const parsed = xmlDialect.parse.addInfo(decode(text), { timeZone: 'Europe/Rome' });
    expect(parsed.rejects).toEqual([]);
    expect(parsed.records.map((n) => [n.id, n.type, n.severity])).toEqual(tags.map((t) => [/infoID="([^"]*)"/.exec(t)?.[1], /type="([^"]*)"/.exec(t)?.[1], /priority="([^"]*)"/.exec(t)?.[1]]));
    const first = parsed.records[0]!;
    expect(first).toMatchObject({ validFrom: '2023-07-14', validTo: '2029-12-07', lines: ['apb:21280: :H'], title: 'Linie 280 Planeil - Mals' });
    expect(first.attrs['validFromAt']).toBe('2023-07-14T10:00:00.000Z');
  });

  // The VGN answer carries its lines per departure only; the VRR one has the itdServingLines block.
  for (const file of ['dm-derf-vrr.xml']) {
    it(`${file}: the itdServingLines block read as a ServingLines answer`, () => {
      const text = read(file);
      const block = /<itdServingLines[^>]*>[\s\S]*?<\/itdServingLines>/.exec(text)?.[0] ?? '';
      const lines = [...block.matchAll(/<itdServingLine ([^>]*)>[\s\S]*?<motDivaParams ([^>]*)\/?>/g)];
      expect(lines.length).toBeGreaterThan(0);
      const answer = `<?xml version="1.0" encoding="UTF-8"?><itdRequest><itdServingLinesRequest>${block}</itdServingLinesRequest></itdRequest>`;
      const parsed = xmlDialect.parse.servingLines(decode(answer));
      expect(parsed.rejects).toEqual([]);
      const attr = (tag: string, name: string): string => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '';
      expect(parsed.records.map((l) => [l.id, l.number, l.mot, l.direction])).toEqual(
        lines.map(([, line = '', diva = '']) => [
          ['network', 'line', 'supplement', 'direction', 'project'].map((k) => attr(diva, k)).join(':'),
          attr(line, 'number'), Number(attr(line, 'motType')), attr(line, 'direction'),
        ]),
      );
    });
  }
});
