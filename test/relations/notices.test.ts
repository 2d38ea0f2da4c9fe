import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rapidJsonDialect } from '../../src/efa/dialects/rapidjson.js';
import type { Notice } from '../../src/efa/records.js';
import { toNoticeRow, withPublication } from '../../src/relations/index.js';

const notice = (id: string, over: Partial<Notice> = {}): Notice => ({
  id, type: 'lineInfo', title: `t${id}`, text: '', lines: ['vvs:10001: :H'], attrs: {}, ...over,
});
const sample = fileURLToPath(new URL('../../../shared/efa-samples/rapidjson/addinfo-tfnsw-trains.json', import.meta.url));

describe('notices', () => {
  it('a current sweep drops notices the dialect marked historic; a history sweep keeps them', () => {
    const list = [notice('a', { attrs: { publication: 'current' } }), notice('b', { attrs: { publication: 'historic' } }), notice('c')];
    expect(withPublication(list, 'current').map((n) => n.id)).toEqual(['a', 'c']);
    expect(withPublication(list, 'history').map((n) => n.id)).toEqual(['a', 'b', 'c']);
  });

  it.skipIf(!existsSync(sample))('stores none of the TfNSW sample historic notices as current', () => {
    const { records } = rapidJsonDialect.parse.addInfo(JSON.parse(readFileSync(sample, 'utf8')));
    const historic = records.filter((n) => n.attrs['publication'] === 'historic');
    expect(historic.length).toBeGreaterThan(0);
    const kept = withPublication(records, 'current');
    expect(kept.length).toBe(records.length - historic.length);
    expect(kept.every((n) => n.attrs['publication'] === 'current')).toBe(true);
  });

  it('a row sorts and de-duplicates its lines, so line order does not count as a change', () => {
    const a = toNoticeRow(notice('x', { lines: ['b', 'a', 'b'] }));
    const b = toNoticeRow(notice('x', { lines: ['a', 'b'] }));
    expect(a.lines).toEqual(['a', 'b']);
    expect(a.content_hash).toBe(b.content_hash);
  });
});
