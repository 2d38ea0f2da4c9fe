/**
 * Issue 11 point 2 and issue 10 point 3: one record per id within one answer, the same whatever
 * order the server wrote the copies in; the newest notice wins; dropped copies are rejects.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rapidJsonDialect } from '../../src/efa/dialects/rapidjson.js';
import { resolveDuplicateNotices, resolveDuplicatePins } from '../../src/efa/parse/duplicates.js';
import type { Notice, Pin } from '../../src/efa/records.js';
import { json, setup } from './fakes.js';

const tfnsw = JSON.parse(readFileSync('/work/shared/efa-samples/rapidjson/addinfo-tfnsw-trains.json', 'utf8')) as {
  version: string;
  infos: { current: Record<string, unknown>[]; historic: Record<string, unknown>[] };
};

/** Every order of a short list. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

const notice = (over: Partial<Notice> & { attrs?: Record<string, unknown> }): Notice => ({ id: 'n1', type: 'lineInfo', title: 'T', text: '', lines: [], attrs: {}, ...over });

describe('resolveDuplicateNotices', () => {
  it('keeps the current copy over the historic one, in whichever order they come', () => {
    const current = notice({ title: 'now', attrs: { publication: 'current', version: 1 } });
    const historic = notice({ title: 'then', attrs: { publication: 'historic', version: 4 } });
    for (const order of [[current, historic], [historic, current]]) {
      const { records, rejects } = resolveDuplicateNotices(order);
      expect(records).toEqual([current]);
      expect(rejects).toEqual([{ operation: 'addInfo', reason: 'duplicate id "n1" in one answer: the current copy is kept over this historic one', raw: historic }]);
    }
  });

  it('among copies of one publication keeps the highest version; ties go by canonical order', () => {
    const copies = [
      notice({ title: 'v2', attrs: { publication: 'historic', version: 2 } }),
      notice({ title: 'v10', attrs: { publication: 'historic', version: 10 } }),
      notice({ title: 'v3', attrs: { publication: 'historic', version: '3' } }),
      notice({ title: 'none', attrs: { publication: 'historic' } }),
    ];
    const results = permutations(copies).map((order) => resolveDuplicateNotices(order));
    for (const { records, rejects } of results) {
      expect(records.map((n) => n.title)).toEqual(['v10']);
      expect(rejects.map((r) => r.reason).sort()).toEqual([
        'duplicate id "n1" in one answer: version 10 is kept over this unversioned copy',
        'duplicate id "n1" in one answer: version 10 is kept over this version 2',
        'duplicate id "n1" in one answer: version 10 is kept over this version 3',
      ]);
    }
    const tie = [notice({ title: 'b' }), notice({ title: 'a' })];
    expect(permutations(tie).map((order) => resolveDuplicateNotices(order).records[0]?.title)).toEqual(['a', 'a']);
  });

  it('drops identical copies silently and keeps first-occurrence order', () => {
    const a = notice({ id: 'a' });
    const b = notice({ id: 'b' });
    expect(resolveDuplicateNotices([a, b, { ...a }, b])).toEqual({ records: [a, b], rejects: [] });
  });
});

describe('resolveDuplicatePins', () => {
  const pin = (over: Partial<Pin>): Pin => ({ type: 'STOP', id: 's1', name: 'S', coord: { lat: 1, lon: 2 }, motTypes: [], attrs: {}, ...over });

  it('keys by (type, id), keeps the same copy in any order, rejects the others; pins without id pass', () => {
    const copies = [pin({ name: 'B' }), pin({ name: 'A' }), pin({ name: 'C', motTypes: [3] })];
    const other = pin({ type: 'BUS_POINT' });
    const noId1 = pin({ id: undefined, type: 'POI_POINT', name: 'x' });
    const noId2 = pin({ id: undefined, type: 'POI_POINT', name: 'x' });
    for (const order of permutations(copies)) {
      const { records, rejects } = resolveDuplicatePins([noId1, ...order, other, noId2]);
      // C's canonical JSON sorts first ("motTypes":[3] before "motTypes":[]): the rule is arbitrary but fixed.
      expect(records.map((p) => [p.type, p.id, p.name])).toEqual([
        ['POI_POINT', undefined, 'x'], ['STOP', 's1', 'C'], ['BUS_POINT', 's1', 'S'], ['POI_POINT', undefined, 'x'],
      ]);
      expect(rejects).toHaveLength(2);
      expect(rejects[0]?.reason).toMatch(/^duplicate id "s1" \(type STOP\) in one answer: /);
    }
  });
});

describe('through the client, per answer', () => {
  it('a real TfNSW notice answered twice (current, and older in historic) is stored once, current, in either order', async () => {
    const first = tfnsw.infos.current[0] as Record<string, unknown>;
    const older = { ...first, version: Number(first['version']) - 1, subtitle: 'an older wording' };
    for (const historic of [[older, ...tfnsw.infos.historic], [...tfnsw.infos.historic, older]]) {
      for (const current of [tfnsw.infos.current, [...tfnsw.infos.current].reverse()]) {
        const { client } = setup([json({ ...tfnsw, infos: { ...tfnsw.infos, current, historic } })], { dialect: rapidJsonDialect });
        const result = await client.addInfo({ filterPublicationStatus: 'history' });
        const kept = result.records.filter((n) => n.id === first['id']);
        expect(kept).toHaveLength(1);
        expect(kept[0]?.attrs).toMatchObject({ publication: 'current', version: first['version'] });
        expect(kept[0]?.title).not.toBe('an older wording');
        expect(result.records).toHaveLength(tfnsw.infos.current.length + tfnsw.infos.historic.length);
        expect(result.rejects.map((r) => r.reason)).toEqual([`duplicate id ${JSON.stringify(first['id'])} in one answer: the current copy is kept over this historic one`]);
      }
    }
  });

  it('two historic versions of one notice: the highest version is kept, whatever the order', async () => {
    const base = tfnsw.infos.historic[0] as Record<string, unknown>;
    const v1 = { ...base, version: 1, subtitle: 'first' };
    const v7 = { ...base, version: 7, subtitle: 'seventh' };
    for (const historic of [[v1, v7], [v7, v1]]) {
      const { client } = setup([json({ version: tfnsw.version, infos: { current: [], historic } })], { dialect: rapidJsonDialect });
      const result = await client.addInfo({ filterPublicationStatus: 'history' });
      expect(result.records.map((n) => n.title)).toEqual(['seventh']);
      expect(result.rejects).toHaveLength(1);
    }
  });

  it('a pin twice in one CoordInfo answer with different content is kept once, the other a reject', async () => {
    const stop = { id: '200020', name: 'Circular Quay', type: 'stop', coord: [-33.86, 151.21] };
    const again = { ...stop, name: 'Circular Quay, Sydney' };
    for (const locations of [[stop, again], [again, stop]]) {
      const { client } = setup([json({ version: '10.6', locations })], { dialect: rapidJsonDialect });
      const result = await client.coordInfoBox({ bbox: [151, -34, 152, -33], filters: [{ type: 'STOP' }] });
      expect(result.records.map((p) => p.name)).toEqual(['Circular Quay']);
      expect(result.rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/^duplicate id "200020" \(type STOP\) in one answer/)]);
    }
  });
});
