import { describe, expect, it } from 'vitest';
import { parseMessages } from '../../src/efa/parse/messages.js';
import { parseNotices } from '../../src/efa/parse/notices.js';
import { parseServingLines } from '../../src/efa/parse/serving-lines.js';
import { noticeSchema, servingLineSchema } from '../../src/efa/records.js';

describe('parseServingLines (json)', () => {
  it('maps lines; number and mot tolerate numbers and numeric strings', () => {
    const { records, rejects } = parseServingLines({
      servingLines: [
        { name: 'S-Bahn S1', number: 'S1', mot: 1, direction: 'Kirchheim (T)', operator: 'DB' },
        { id: 'vvs:20006: :H', name: 'Bus 42', number: 42, mot: '5' },
      ],
    });
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      { name: 'S-Bahn S1', number: 'S1', mot: 1, direction: 'Kirchheim (T)', attrs: { operator: 'DB' } },
      { id: 'vvs:20006: :H', name: 'Bus 42', number: '42', mot: 5, direction: '', attrs: {} },
    ]);
    for (const line of records) expect(servingLineSchema.parse(line)).toEqual(line);
  });

  it('rejects lines with a bad mot or no name', () => {
    const { records, rejects } = parseServingLines({
      servingLines: [
        { name: 'X', number: '1', mot: -1, direction: 'a' },
        { name: 'Y', number: '1', mot: 'tram', direction: 'a' },
        { number: '1', mot: 4, direction: 'a' },
        { name: 'Z', number: '1', mot: 1.5, direction: 'a' },
      ],
    });
    expect(records).toEqual([]);
    expect(rejects.map((reject) => reject.reason.split(':')[0])).toEqual([
      'servingLines[0].mot',
      'servingLines[1].mot',
      'servingLines[2].name',
      'servingLines[3].mot',
    ]);
    expect(() => parseServingLines({ lines: [] })).toThrow(/servingLines: missing/);
  });
});

describe('parseNotices (json)', () => {
  it('maps notices with dates, lines and severity', () => {
    const { records, rejects } = parseNotices({
      infos: [
        {
          id: 'N-1',
          type: 'lineBlocking',
          title: 'U6: Bauarbeiten',
          text: 'Zwischen A und B Ersatzverkehr.',
          validFrom: '2024-03-01',
          validTo: '2024-03-31T23:59:00+01:00',
          lines: ['vvs:10006: :H', 'vvs:10006: :R'],
          severity: 'high',
          url: 'https://example.org/n1',
        },
        { id: 'N-2', type: 'generalInfo', title: 'Hinweis', text: '' },
      ],
    });
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      {
        id: 'N-1',
        type: 'lineBlocking',
        title: 'U6: Bauarbeiten',
        text: 'Zwischen A und B Ersatzverkehr.',
        validFrom: '2024-03-01',
        validTo: '2024-03-31',
        lines: ['vvs:10006: :H', 'vvs:10006: :R'],
        severity: 'high',
        attrs: { url: 'https://example.org/n1' },
      },
      { id: 'N-2', type: 'generalInfo', title: 'Hinweis', text: '', lines: [], attrs: {} },
    ]);
    for (const notice of records) expect(noticeSchema.parse(notice)).toEqual(notice);
  });

  it('rejects notices without id, with bad dates or non-string lines', () => {
    const { records, rejects } = parseNotices({
      infos: [
        { type: 'stopInfo', title: 't', text: 'x' },
        { id: 'a', type: 'stopInfo', validFrom: '01-03-2024' },
        { id: 'b', type: 'stopInfo', validTo: '2024-02-30' },
        { id: 'c', type: 'stopInfo', lines: [1] },
      ],
    });
    expect(records).toEqual([]);
    expect(rejects.map((reject) => reject.reason.split(':')[0])).toEqual([
      'infos[0].id',
      'infos[1].validFrom',
      'infos[2].validTo',
      'infos[3].lines[0]',
    ]);
  });
});

describe('parseMessages', () => {
  it('keeps message and systemMessages in any of their forms', () => {
    expect(
      parseMessages({
        message: [{ name: 'code', value: '-8010' }],
        systemMessages: [{ type: 'error', module: 'BROKER', code: -8010, text: 'no hits', extra: 1 }],
        pins: [],
      }),
    ).toEqual([
      { code: 'code', text: '-8010', attrs: {} },
      { type: 'error', module: 'BROKER', code: '-8010', text: 'no hits', attrs: { extra: 1 } },
    ]);
    expect(parseMessages({ message: 'server busy' })).toEqual([{ text: 'server busy', attrs: {} }]);
    expect(parseMessages({ pins: [] })).toEqual([]);
    expect(parseMessages('nope')).toEqual([]);
  });
});
