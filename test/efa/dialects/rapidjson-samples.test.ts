/**
 * The rapidjson profile against the public rapidJSON samples (see /work/shared/efa-samples/SOURCES.md):
 * TfNSW coord (BUS_POINT, POI_POINT, one STOP fragment), TfNSW and NVBW stop finder, VVS serving
 * lines, TfNSW add_info. Values asserted here are read off the sample files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rapidJsonDialect } from '../../../src/efa/dialects/rapidjson.js';

const DIR = '/work/shared/efa-samples/rapidjson/';
const sample = (file: string): unknown => JSON.parse(readFileSync(DIR + file, 'utf8'));
const { parse } = rapidJsonDialect;

describe('rapidjson CoordInfo (TfNSW)', () => {
  it('BUS_POINT: platforms stay pins of their own, [lat, lon] read as lat then lon, parents in attrs', () => {
    const { records, rejects } = parse.coordInfo(sample('coord-tfnsw-bus-point.json'));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(134);
    const first = records[0];
    expect(first).toMatchObject({
      type: 'BUS_POINT',
      id: '2000466',
      name: 'Central Station, Platform 26, Sydney',
      coord: { lat: -33.884117, lon: 151.206381 },
      motTypes: [],
    });
    expect(first?.attrs).toMatchObject({
      rapidType: 'platform',
      parentIds: ['2000466', 'placeID:95301001:1'],
      STOP_GLOBAL_ID: '200060',
      STOPPOINT_GLOBAL_ID: '2000466',
      IDENTIFIER: 'CE26',
      distance: 9,
      disassembledName: 'Central Station, Platform 26, Sydney',
    });
    expect(first?.attrs['parent']).toMatchObject({ type: 'stop', parent: { type: 'locality', name: 'Sydney' } });
    expect(records.every((p) => p.type === 'BUS_POINT' && p.coord.lat < -33 && p.coord.lon > 151)).toBe(true);
  });

  it('POI_POINT: ids, names and draw-class properties', () => {
    const { records, rejects } = parse.coordInfo(sample('coord-tfnsw-poi-point.json'));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(774);
    expect(records.every((p) => p.type === 'POI_POINT')).toBe(true);
    expect(records[1]).toMatchObject({
      id: 'poiID:858271720:95301027:-1:Bounce Hotel:Surry Hills:Bounce Hotel:ANY:POI:4889212:3757341:GDAV:NSW',
      name: 'Bounce Hotel',
      coord: { lat: -33.884637, lon: 151.207508 },
      attrs: { POI_DRAW_CLASS: 'PoiHotel', POI_DRAW_CLASS_TYPE: 'POINT', distance: 128, parentIds: ['placeID:95301027:-1'] },
    });
  });

  it('STOP fragment: productClasses are the MOT types', () => {
    const location = sample('coord-maxim75-tfnsw_trip_planner-tfnsw-location0-FRAGMENT.json');
    const { records } = parse.coordInfo({ version: '10.6.21.17', locations: [location] });
    expect(records).toEqual([
      expect.objectContaining({
        type: 'STOP',
        id: '200020',
        coord: { lat: -33.861351, lon: 151.210813 },
        motTypes: [1, 4, 5, 9],
      }),
    ]);
    expect(records[0]?.attrs).toMatchObject({ STOP_MOT_LIST: '1,4,5,9', stopId: '10101103', isGlobalId: true });
  });
});

describe('rapidjson StopFinder', () => {
  it('TfNSW "Epping": the best match is the 34th entry, not the first; kinds stay lower case', () => {
    const { records, rejects } = parse.stopFinder(sample('stopfinder-tfnsw-epping.json'));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(49);
    expect(records[0]).toMatchObject({ type: 'street', isBest: false, matchQuality: 234, coord: { lat: -33.881389, lon: 151.245664 } });
    expect(records.filter((l) => l.isBest).map((l) => records.indexOf(l))).toEqual([33]);
    expect(records[33]).toMatchObject({
      id: '212110',
      name: 'Epping Station, Epping',
      type: 'stop',
      isBest: true,
      matchQuality: 979,
      coord: { lat: -33.772837, lon: 151.082082 },
      attrs: { motTypes: [1, 2, 5, 11], stopId: '10101429', parentIds: ['placeID:95325016:1'] },
    });
    const kinds = new Set(records.map((l) => l.type));
    expect([...kinds].sort()).toEqual(['poi', 'stop', 'street', 'suburb']);
  });

  it('NVBW: best match third, umlauts intact, -8011 is a message, not a failure', () => {
    const body = sample('stopfinder-miraficent-sha-live-map-efa-api-nvbw-TRUNCATED.json');
    const { records, rejects } = parse.stopFinder(body);
    expect(rejects).toEqual([]);
    expect(records.map((l) => [l.id, l.isBest, l.matchQuality])).toEqual([
      ['de:08127:20015', false, 947],
      ['de:08127:20732', false, 925],
      ['de:08127:20013', true, 1000],
      ['de:08136:3188', false, 765],
    ]);
    expect(records[2]).toMatchObject({
      name: 'Schwäbisch Hall, Schwäbisch Hall',
      coord: { lat: 49.10839, lon: 9.733534 },
      attrs: { motTypes: [5, 6, 7, 10, 13], mainLocality: 'Schwäbisch Hall', parentIds: ['placeID:8127076:22'] },
    });
    expect(records[2]?.attrs['_mojibakeRepaired']).toBeUndefined();
    expect(rapidJsonDialect.messages(body)).toEqual([{ type: 'error', code: '-8011', module: 'BROKER', text: '', attrs: {} }]);
  });
});

describe('rapidjson ServingLines (VVS)', () => {
  it('lines[]: product.class is the MOT, destination.name the direction, the id cut to five parts', () => {
    const { records, rejects } = parse.servingLines(sample('servinglines-suhlig-vvs-concourse-vvs.json'));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(18);
    expect(records[0]).toMatchObject({
      id: 'vvs:10001: :H:j17',
      name: 'S-Bahn S1',
      number: 'S1',
      mot: 1,
      direction: 'Herrenberg',
      attrs: { rapidId: 'vvs:10001: :H:j17:1', description: 'Kirchheim (T) - Plochingen - Stuttgart - Herrenberg' },
    });
    expect(records[1]).toMatchObject({ id: 'vvs:10001: :R:j17', direction: 'Kirchheim (T)' });
    expect(records[17]).toMatchObject({
      id: 'vvs:31367:e:R:j17',
      name: 'Bus Shuttleverkehr Andrea Berg',
      number: 'Shuttleverkehr Andrea Berg',
      mot: 5,
      direction: 'Backnang ZOB',
    });
  });
});

describe('rapidjson AddInfo (TfNSW trains)', () => {
  const { records, rejects } = parse.addInfo(sample('addinfo-tfnsw-trains.json'));

  it('current and historic notices, marked, current first', () => {
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(96);
    expect(records.slice(0, 66).every((n) => n.attrs['publication'] === 'current')).toBe(true);
    expect(records.slice(66).every((n) => n.attrs['publication'] === 'historic')).toBe(true);
  });

  it('a current notice: title and text, validity days as written, line ids, severity from priority', () => {
    expect(records[0]).toMatchObject({
      id: '2a6f0dc577627a614e911d742e73975840efc82b',
      type: 'tripMessage',
      title: 'Not stopping at',
      validFrom: '2025-06-14',
      validTo: '2500-12-31',
      lines: ['nsw:020T2: :R'],
      severity: 'normal',
    });
    expect(records[0]?.text).toMatch(/^Edmondson Park,Casula,.* due to a person causing a disturbance at Edmondson Park$/);
    expect(records[0]?.attrs).toMatchObject({ version: 1, url: 'https://transportnsw.info/alerts/details#/2a6f0dc577627a614e911d742e73975840efc82b' });
  });

  it('a historic notice has its text only in infoLinks', () => {
    expect(records.find((n) => n.id === 'ems-65431')).toMatchObject({
      type: 'lineInfo',
      title: 'Train service delays between Brisbane (Roma Street) Station and Central Station',
      text: 'There are delays on route 32 train services due to customer boarding delays. \n Plan ahead and allow extra travel time.',
      validFrom: '2026-01-12',
      validTo: '2026-01-13',
      lines: ['nsw:76032: :R'],
      severity: 'normal',
      attrs: { publication: 'historic' },
    });
  });

  it('several validity windows span from the first start to the last end; priorities and stops kept', () => {
    // ems-64569 has four windows, 2026-01-12T10:50Z to 2026-01-15T15:30Z.
    expect(records.find((n) => n.id === 'ems-64569')).toMatchObject({ validFrom: '2026-01-12', validTo: '2026-01-15' });
    expect(new Set(records.map((n) => n.severity))).toEqual(new Set(['normal', 'veryLow']));
    expect(records.filter((n) => Array.isArray(n.attrs['stops'])).length).toBe(11);
    expect(new Set(records.map((n) => n.id)).size).toBe(96);
  });
});
