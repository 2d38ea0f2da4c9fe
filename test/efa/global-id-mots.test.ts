/**
 * Issue 9 point 3 (global stop ids, read alike in every dialect) and issue 11 point 3 (StopFinder
 * stops keep their means of transport), on the real samples where they show it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dialects } from '../../src/efa/dialects/index.js';
import { globalIdOf, hasGlobalIdForm } from '../../src/efa/parse/global-id.js';
import { locationToPin } from '../../src/sweep/nightly/stop-finder.js';

const load = (file: string): Record<string, unknown> => JSON.parse(readFileSync(`/work/shared/efa-samples/${file}`, 'utf8')) as Record<string, unknown>;

describe('global ids', () => {
  it('legacy CoordInfo (MVV): STOP_GLOBAL_ID of the attrs list, the local id beside it', () => {
    const { records } = dialects.legacy.parse.coordInfo(load('legacy-json/coord-jlnstrk-transit-mvv.json'));
    expect(records[0]).toMatchObject({ id: 'de:09162:1', globalId: 'de:09162:1', attrs: { localId: '1000001' } });
    expect(records.every((p) => p.globalId !== undefined && p.globalId === p.id)).toBe(true);
  });

  it('json CoordInfo: an attrs name/value list is read the same way', () => {
    const { records } = dialects.json.parse.coordInfo({
      pins: [
        { type: 'STOP', id: '1000001', name: 'Karlsplatz', coord: { lat: 48.1, lon: 11.5 }, attrs: [{ name: 'STOP_GLOBAL_ID', value: 'de:09162:1' }] },
        { type: 'STOP', id: '5', name: 'no global id', coord: { lat: 48.1, lon: 11.5 } },
      ],
    });
    expect(records.map((p) => [p.id, p.globalId])).toEqual([['1000001', 'de:09162:1'], ['5', undefined]]);
  });

  it('legacy StopFinder: ref.gid; VOR without gid has none', () => {
    const body = JSON.parse(JSON.stringify(load('legacy-json/stopfinder-jlnstrk-transit-mvv.json')).replace(/"coords":"[^"]*"/g, '"coords":"11.6,48.2"')) as unknown;
    const { records } = dialects.legacy.parse.stopFinder(body);
    expect(records.find((l) => l.id === 'de:09174:7073')?.globalId).toBe('de:09174:7073');
    expect(records.filter((l) => l.type === 'poi').every((l) => l.globalId === undefined)).toBe(true);
  });

  it('rapidJSON: a platform has its STOPPOINT_GLOBAL_ID, a stop its isGlobalId id', () => {
    const pins = dialects.rapidjson.parse.coordInfo(load('rapidjson/coord-tfnsw-bus-point.json'), { requestedTypes: ['BUS_POINT'] }).records;
    expect(pins[0]).toMatchObject({ type: 'BUS_POINT', id: '2000466', globalId: '2000466', attrs: { STOP_GLOBAL_ID: '200060' } });
    const nvbw = dialects.rapidjson.parse.stopFinder(load('rapidjson/stopfinder-miraficent-sha-live-map-efa-api-nvbw-TRUNCATED.json')).records;
    expect(nvbw[0]).toMatchObject({ id: 'de:08127:20015', globalId: 'de:08127:20015' });
    const fragment = load('rapidjson/coord-maxim75-tfnsw_trip_planner-tfnsw-location0-FRAGMENT.json');
    const stop = dialects.rapidjson.parse.coordInfo({ version: '10.6', locations: [fragment] }).records[0];
    expect(stop).toMatchObject({ id: '200020', globalId: '200020' });
  });

  it('an id of the IFOPT/DHID form is its own global id; blank attributes are none', () => {
    expect(['de:08111:6008', 'de:08111:6008:1:2', 'at:49:1234'].every(hasGlobalIdForm)).toBe(true);
    expect(['6008', 'poiID:1:2', 'd:1:2', 'de:x:2', 'placeID:95301001:1'].some(hasGlobalIdForm)).toBe(false);
    expect(globalIdOf({ id: 'de:08111:6008', attributes: new Map() })).toBe('de:08111:6008');
    expect(globalIdOf({ id: '6008', attributes: new Map([['STOP_GLOBAL_ID', ' ']]) })).toBeUndefined();
  });
});

describe('StopFinder stops keep their means of transport', () => {
  it('rapidJSON `modes` (TfNSW) and `productClasses` (NVBW) become Location.motTypes', () => {
    const epping = dialects.rapidjson.parse.stopFinder(load('rapidjson/stopfinder-tfnsw-epping.json')).records.find((l) => l.id === '212110');
    expect(epping?.motTypes).toEqual([1, 2, 5, 11]);
    const nvbw = dialects.rapidjson.parse.stopFinder(load('rapidjson/stopfinder-miraficent-sha-live-map-efa-api-nvbw-TRUNCATED.json')).records[0];
    expect(nvbw?.motTypes).toEqual([0, 5, 6, 7, 10, 13]);
  });

  it('legacy `modes` text (VOR) and json `motTypes`', () => {
    const point = { ...load('legacy-json/stopfinder-jlnstrk-transit-vor-point-stop.json'), ref: { id: '60201510', coords: '16.35,48.22' } };
    expect(dialects.legacy.parse.stopFinder({ stopFinder: { points: [point] } }).records[0]?.motTypes).toEqual([2, 4, 5, 11]);
    const json = dialects.json.parse.stopFinder({ locations: [{ id: 'de:1:2', name: 'S', type: 'stop', matchQuality: 1, motTypes: '3,1' }] });
    expect(json.records[0]?.motTypes).toEqual([1, 3]);
  });

  it('a located best match stored as a pin keeps them (and its global id)', () => {
    const epping = dialects.rapidjson.parse.stopFinder(load('rapidjson/stopfinder-tfnsw-epping.json')).records.find((l) => l.isBest);
    expect(epping && locationToPin(epping)).toMatchObject({ type: 'STOP', id: '212110', motTypes: [1, 2, 5, 11], globalId: '212110' });
  });
});
