/** detect() and the request additions of the rapidjson profile. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonDialect } from '../../../src/efa/dialects/json.js';
import { rapidJsonDialect } from '../../../src/efa/dialects/rapidjson.js';
import { OPERATIONS } from '../../../src/efa/operations.js';

const ROOT = '/work/shared/efa-samples/';
const read = (path: string): unknown => JSON.parse(readFileSync(ROOT + path, 'utf8'));
const filesIn = (dir: string): string[] => readdirSync(ROOT + dir).filter((f) => f.endsWith('.json')).map((f) => `${dir}/${f}`);

/** Bodies of the json dialect as efa-api.md documents them (and the simulator sends them). */
const JSON_BODIES: readonly unknown[] = [
  { pins: [{ type: 'STOP', id: 'de:08111:6008', name: 'Hbf', coord: { lat: 48.78, lon: 9.18 }, motTypes: '1,2' }] },
  { locations: [{ id: 'de:08111:6008', name: 'Hbf', type: 'stop', isBest: true, matchQuality: 1000, coord: { lat: 48.78, lon: 9.18 } }] },
  { servingLines: [{ name: 'S1', number: 'S1', mot: 1, direction: 'Herrenberg' }] },
  { infos: [{ id: 'n1', type: 'lineInfo', title: 't', text: 'x', validFrom: '2026-01-01', validTo: '2026-01-02', lines: [] }] },
  { providers: [{ id: 'p', name: 'Bikes', vehicleType: 'BIKE', areas: [] }] },
  { infos: [] },
];

describe('rapidjson detect', () => {
  // The fragment is one location, not a body; it is tested inside an envelope below.
  it.each(filesIn('rapidjson').filter((f) => !f.includes('FRAGMENT')))('recognises the sample %s', (file) => {
    expect(rapidJsonDialect.detect(read(file))).toBe(true);
    expect(jsonDialect.detect(read(file))).toBe(false);
  });

  it('recognises the TfNSW coord fragment inside its envelope', () => {
    const location = read('rapidjson/coord-maxim75-tfnsw_trip_planner-tfnsw-location0-FRAGMENT.json');
    expect(rapidJsonDialect.detect({ version: '10.6.21.17', locations: [location] })).toBe(true);
    expect(rapidJsonDialect.detect({ locations: [location] })).toBe(true);
  });

  it.each([...filesIn('legacy-json'), ...filesIn('other')])('does not claim the legacy body %s', (file) => {
    expect(rapidJsonDialect.detect(read(file))).toBe(false);
  });

  it('does not claim json-dialect bodies', () => {
    for (const body of JSON_BODIES) expect(rapidJsonDialect.detect(body)).toBe(false);
  });

  it('recognises record-less rapidJSON answers by their envelope; rejects non-objects', () => {
    expect(rapidJsonDialect.detect({ version: '11.0.6.72', systemMessages: [{ type: 'error', code: -8011 }] })).toBe(true);
    expect(rapidJsonDialect.detect({ version: '10.6.21.17', locations: [] })).toBe(true);
    expect(rapidJsonDialect.detect({ version: '10.6.21.17', infos: { current: [], historic: [] } })).toBe(true);
    expect(rapidJsonDialect.detect({ version: '10.6.21.17' })).toBe(false);
    for (const body of [null, [], 'rapidJSON', 42]) expect(rapidJsonDialect.detect(body)).toBe(false);
  });
});

describe('rapidjson request additions', () => {
  it('every operation asks for rapidJSON with WGS84 coordinates as EPSG:4326', () => {
    for (const operation of OPERATIONS) {
      expect(rapidJsonDialect.extraParams(operation)).toEqual([
        ['outputFormat', 'rapidJSON'],
        ['coordOutputFormat', 'EPSG:4326'],
      ]);
    }
    expect(rapidJsonDialect.name).toBe('rapidjson');
  });
});
