/**
 * Issue 11 point 1: what the server said is stored verbatim. On every real sample, in the sample's
 * dialect and under `auto`, ids and names come out exactly as the JSON has them and pin types are
 * object types of efa-api.md with the dialect's own word kept in attrs.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/efa/dialect.js';
import { createAutoDialect, dialects } from '../../src/efa/dialects/index.js';
import type { Location, Notice, Pin, ServingLine } from '../../src/efa/records.js';
import { OBJECT_TYPES } from '../../src/efa/request/coord-filters.js';
import { allSamples, type RawRecord, type Sample } from './samples.js';

const { samples, undescribed } = allSamples();

/** What each CoordInfo sample asked for (SOURCES.md). */
const REQUESTED: Readonly<Record<string, readonly string[]>> = {
  'rapidjson/coord-tfnsw-bus-point.json': ['BUS_POINT'],
  'rapidjson/coord-tfnsw-poi-point.json': ['POI_POINT'],
  'rapidjson/coord-maxim75-tfnsw_trip_planner-tfnsw-location0-FRAGMENT.json': ['STOP'],
  'legacy-json/coord-jlnstrk-transit-mvv.json': ['STOP'],
};

const OBJECT_TYPE_SET = new Set<string>(OBJECT_TYPES);

function parse(dialect: Dialect, sample: Sample) {
  const context = { requestedTypes: REQUESTED[sample.file] ?? [] };
  return dialect.parse[sample.operation](sample.wgs84Body, context);
}

function checkPin(pin: Pin, expected: RawRecord, sample: Sample): void {
  expect(pin.id).toBe(expected.id);
  expect(pin.name).toBe(expected.name);
  expect(OBJECT_TYPE_SET.has(pin.type), `${pin.type} is an object type`).toBe(true);
  if (sample.dialect === 'rapidjson') expect(pin.attrs['rapidType']).toBe(expected.kind);
  else expect(pin.type === expected.kind || pin.attrs['legacyType'] === expected.kind).toBe(true);
}

function checkRecord(record: unknown, expected: RawRecord, sample: Sample): void {
  switch (sample.operation) {
    case 'coordInfo':
      return checkPin(record as Pin, expected, sample);
    case 'stopFinder': {
      const location = record as Location;
      expect(location.id).toBe(expected.id);
      expect(location.name).toBe(expected.name);
      expect(location.type).toBe(expected.kind);
      return;
    }
    case 'servingLines': {
      const line = record as ServingLine;
      if (expected.name !== undefined) expect(line.name).toBe(expected.name);
      // A line id is cut to the five parts every dialect has; the server's full id stays in attrs.
      if (expected.id !== undefined) expect(line.attrs['rapidId'] ?? line.id).toBe(expected.id);
      return;
    }
    case 'addInfo': {
      const notice = record as Notice;
      expect(notice.id).toBe(expected.id);
      expect(notice.type).toBe(expected.kind);
      return;
    }
    case 'opArea':
      throw new Error('no OpArea sample exists');
  }
}

describe('every real sample: ids, names and types verbatim', () => {
  it('every JSON file under efa-samples is described', () => {
    expect(undescribed).toEqual([]);
    expect(samples.length).toBeGreaterThanOrEqual(16);
  });

  for (const sample of samples) {
    for (const mode of [sample.dialect, 'auto'] as const) {
      it(`${sample.file} read as ${mode}`, () => {
        const dialect = mode === 'auto' ? createAutoDialect() : dialects[mode];
        const { records, rejects } = parse(dialect, sample);
        expect(rejects).toEqual([]);
        expect(records).toHaveLength(sample.records.length);
        records.forEach((record, index) => checkRecord(record, sample.records[index] as RawRecord, sample));
      });
    }
  }
});

describe('verbatim where the samples do not show it', () => {
  it('a TfNSW GIS id keeps its trailing space, and `gis` answering GIS_POINT is GIS_POINT', () => {
    const body = {
      version: '10.6.21.17',
      locations: [
        { id: 'coord:4889102:3757273:GDAV: ', name: ' Hyde Park ', type: 'gis', coord: [-33.873, 151.211] },
        { id: ' 2000466', name: 'Central', type: 'gis', coord: [-33.884, 151.206] },
      ],
    };
    const { records, rejects } = dialects.rapidjson.parse.coordInfo(body, { requestedTypes: ['GIS_POINT'] });
    expect(rejects).toEqual([]);
    expect(records.map((p) => [p.type, p.id, p.name, p.attrs['rapidType']])).toEqual([
      ['GIS_POINT', 'coord:4889102:3757273:GDAV: ', ' Hyde Park ', 'gis'],
      ['GIS_POINT', ' 2000466', 'Central', 'gis'],
    ]);
    const areas = dialects.rapidjson.parse.coordInfo(body, { requestedTypes: ['GIS_AREA'] });
    expect(areas.records.map((p) => p.type)).toEqual(['GIS_AREA', 'GIS_AREA']);
  });

  it('ids keep their spaces in the json and legacy dialects too; a blank id is no id', () => {
    const json = dialects.json.parse.coordInfo({
      pins: [
        { type: 'GIS_POINT', id: 'coord:1:2:GDAV: ', name: 'A ', coord: { lat: 1, lon: 2 } },
        { type: 'POI_POINT', id: '   ', name: 'B', coord: { lat: 1, lon: 2 } },
      ],
    });
    expect(json.records.map((p) => [p.id, p.name])).toEqual([['coord:1:2:GDAV: ', 'A '], [undefined, 'B']]);
    const legacy = dialects.legacy.parse.stopFinder({
      stopFinder: { points: [{ name: ' X ', anyType: 'stop', stateless: '6008 ', quality: '1', ref: { id: '6008 ', coords: '9.1,48.7' } }] },
    });
    expect(legacy.records.map((l) => [l.id, l.name])).toEqual([['6008 ', ' X ']]);
    const notices = dialects.rapidjson.parse.addInfo({ infos: { current: [{ id: 'n1 ', type: 'lineInfo' }], historic: [] } });
    expect(notices.records.map((n) => n.id)).toEqual(['n1 ']);
  });

  it('a rapidJSON kind that names no object type takes the one type asked for, else is a reject', () => {
    const body = { version: '10.6', locations: [{ id: 'a', name: 'A', type: 'singlehouse', coord: [48.7, 9.1] }] };
    expect(dialects.rapidjson.parse.coordInfo(body, { requestedTypes: ['STREET'] }).records[0]).toMatchObject({ type: 'STREET', attrs: { rapidType: 'singlehouse' } });
    const unclear = dialects.rapidjson.parse.coordInfo(body, { requestedTypes: ['ANY'] });
    expect(unclear.records).toEqual([]);
    expect(unclear.rejects[0]?.reason).toBe('locations[0].type: rapidJSON location type "singlehouse" names none of the object types');
  });
});
