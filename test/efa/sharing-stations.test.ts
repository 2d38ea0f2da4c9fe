/**
 * Sharing stations read off CoordInfo answers (src/efa/parse/stations.ts): the published rapidJSON
 * schema's coordInfoDetails.station, in every dialect the simulator renders it in, against the
 * real samples (none carries a sharing object), and hostile stations, each a reject with its reason.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { dialects } from '../../src/efa/dialects/index.js';
import { readSharingStations, MAX_STATION_SLOTS } from '../../src/efa/parse/stations.js';
import { parseRapidPins } from '../../src/efa/parse/rapidjson/locations.js';
import { sharingStationSchema, type Pin } from '../../src/efa/records.js';
import { DEFAULT_REGION, generateWorld } from '../../src/sim/index.js';
import { parseCoordQuery, runCoordQuery } from '../../src/sim/ops/coord.js';
import { Params } from '../../src/sim/params.js';
import { renderers, SIM_DIALECTS } from '../../src/sim/render/index.js';
import { RAPID_SCHEMAS } from '../helpers/rapidjson-schema.js';
import { allSamples } from './samples.js';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext (as test/sim/rapidjson-schema.test.ts).
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** A rapidJSON sharing location as the published schema shapes it (values made up). */
const location = (id: string, details: Record<string, unknown>, coord: [number, number] = [48.78, 9.18]) => ({
  id, name: `Loc ${id}`, type: 'sharing', coord, properties: { distance: 12, coordInfoDetails: details },
});

const stationObject = (over: Record<string, unknown> = {}) => ({
  id: 'ST7', name: 'Marktplatz', coord: [48.7751, 9.1799], providerId: 42, providerName: 'RegioRad', operatingAreaId: 'A1',
  stNum: '0815', addr: 'Marktplatz 1', lastUpdate: '2026-11-27T04:00:00+01:00',
  bikeSlots: { totalSlots: 12, emptySlots: 5, freeVehicles: 7 }, eBikeSlots: { totalSlots: 4, emptySlots: 4, freeVehicles: 0 },
  oOS: false, vehicles: [{ id: 'B1', vehType: 'BIKE' }], ...over,
});

const rapidPins = (locations: unknown[]): Pin[] => {
  const parsed = parseRapidPins({ version: '10.6', locations });
  expect(parsed.rejects).toEqual([]);
  return parsed.records;
};

describe('readSharingStations (rapidJSON coordInfoDetails)', () => {
  it('reads a station listed alone, once, however many vehicles standing at it carry a copy', () => {
    const pins = rapidPins([
      // A vehicle at the station first: its copy is shortened; the listing's wins.
      location('B1:42:A1', { type: 'STATION', providerId: 42, operatingAreaId: 'A1', station: { id: 'ST7', name: 'Marktpl.', providerId: 42, coord: [48.7751, 9.1799] }, vehicleDetails: { id: 'B1', vehType: 'BIKE' } }),
      location('ST7', { type: 'STATION', providerId: 42, operatingAreaId: 'A1', station: stationObject() }, [48.7751, 9.1799]),
      // A free floater carries no station.
      location('B9:42:A1', { type: 'FREEFLOATER', providerId: 42, vehicleDetails: { id: 'B9', vehType: 'BIKE' } }),
    ]);
    const { records, rejects } = readSharingStations(pins);
    expect(rejects).toEqual([]);
    expect(records).toEqual([{
      providerId: '42', id: 'ST7', name: 'Marktplatz', coord: { lat: 48.7751, lon: 9.1799 }, operatingAreaId: 'A1', number: '0815',
      address: 'Marktplatz 1',
      slots: { bike: { total: 12, empty: 5, freeVehicles: 7 }, eBike: { total: 4, empty: 4, freeVehicles: 0 } },
      outOfService: false,
      // The vehicles standing there and the time of the reading change by the minute: not the station's.
      attrs: { providerName: 'RegioRad' },
    }]);
    expect(sharingStationSchema.parse(records[0])).toEqual(records[0]);
  });

  it('takes a listing\'s position, name and provider from the location where the station object has none', () => {
    const pins = rapidPins([location('ST8:77:Z', { type: 'STATION', station: { bikeSlots: { totalSlots: 3 } } }, [48.7, 9.1])]);
    expect(readSharingStations(pins)).toEqual({
      records: [{ providerId: '77', id: 'ST8', name: 'Loc ST8:77:Z', coord: { lat: 48.7, lon: 9.1 }, slots: { bike: { total: 3, empty: null, freeVehicles: null } }, attrs: {} }],
      rejects: [],
    });
  });

  it('rejects each station that cannot be stored with its reason, and still reads the others', () => {
    const broken: [string, Record<string, unknown>, string][] = [
      ['no id', { station: stationObject({ id: undefined }), vehicleDetails: { id: 'V' } }, 'station.id: missing'],
      ['negative', { station: stationObject({ id: 'N', bikeSlots: { totalSlots: -1 } }) }, 'station.bikeSlots.totalSlots: negative count -1'],
      ['absurd', { station: stationObject({ id: 'X', carSlots: { totalSlots: 1e9 } }) }, `more than ${MAX_STATION_SLOTS} slots`],
      ['fraction', { station: stationObject({ id: 'F', bikeSlots: { freeVehicles: 2.5 } }) }, 'expected a whole number, got 2.5'],
      ['text count', { station: stationObject({ id: 'T', bikeSlots: { emptySlots: '3' } }) }, 'expected a whole number, got "3"'],
      ['slots not counts', { station: stationObject({ id: 'S', bikeSlots: 12 }) }, 'station.bikeSlots: expected an object of counts'],
      ['oOS text', { station: stationObject({ id: 'O', oOS: 'yes' }) }, 'station.oOS: expected true or false'],
      ['no provider', { station: stationObject({ id: 'P', providerId: undefined }) }, 'station.providerId: missing'],
      ['grid position', { station: stationObject({ id: 'G', coord: [4475708, 812930] }) }, 'is not a WGS84 [lat, lon] position'],
      ['not an object', { station: 'ST1' }, 'station: expected an object'],
      // A free floater's position is not a station's.
      ['free floater, no position', { type: 'FREEFLOATER', station: { id: 'V1', providerId: 42 }, vehicleDetails: { id: 'B2' } }, 'station.coord: missing'],
    ];
    const pins = rapidPins([
      ...broken.map(([label, details]) => location(`L-${label}`, details)),
      location('ST7', { type: 'STATION', station: stationObject() }),
    ]);
    const { records, rejects } = readSharingStations(pins);
    expect(records.map((r) => r.id)).toEqual(['ST7']);
    expect(rejects).toHaveLength(broken.length);
    broken.forEach(([label, , reason], i) => {
      expect(rejects[i]?.operation).toBe('coordInfo');
      expect(rejects[i]?.reason, label).toContain(reason);
      expect(rejects[i]?.reason.startsWith('sharing station: '), label).toBe(true);
      // The object as received is kept for efa.rejects.
      expect((rejects[i]?.raw as { coordInfoDetails: unknown }).coordInfoDetails, label).toEqual(broken[i]?.[1]);
    });
  });
});

describe('the rapidJSON fixture written from the published schema', () => {
  it('gives its two stations: one listed with its vehicles, one only named by a car standing at it', () => {
    const body = JSON.parse(readFileSync(new URL('../fixtures/rapidjson/sharing.json', import.meta.url), 'utf8')) as unknown;
    const { records, rejects } = readSharingStations(rapidPins((body as { locations: unknown[] }).locations));
    expect(rejects).toEqual([]);
    expect(records.map((r) => [r.providerId, r.id, r.name, r.operatingAreaId, r.outOfService])).toEqual([
      ['12', 'st-88', 'Essen Rüttenscheid Station', '201', false],
      ['7', 'st-90', 'Essen Hbf Süd Station', '101', false],
    ]);
    // The car's location places st-88, which sends no position of its own.
    expect(records[0]?.coord).toEqual({ lat: 51.4402, lon: 7.0051 });
    expect(records[0]?.slots).toEqual({ car: { total: 4, empty: 1, freeVehicles: 2 }, carElectric: { total: 2, empty: 0, freeVehicles: 1 } });
    expect(records[1]?.attrs).toEqual({ operatingAreaName: 'Essen Innenstadt', providerName: 'metropolradruhr' });
  });
});

describe('sharing stations in every dialect the simulator renders', () => {
  const world = generateWorld({ seed: 3, size: 400, stations: 9 });
  const [w, s, e, n] = DEFAULT_REGION;
  const query = parseCoordQuery(new Params(new URLSearchParams(
    `boundingBox=&boundingBoxLU=${w}:${n}:WGS84[dd.ddddd]&boundingBoxRL=${e}:${s}:WGS84[dd.ddddd]&inclFilter=1&type_0=ANY`,
  )));
  const expected = world.truth(DEFAULT_REGION).stations.map((st) => ({ providerId: st.providerId, id: st.id, name: st.name, lon: st.lon, lat: st.lat, oos: st.outOfService, capacity: st.capacity }));

  it('has stations to find', () => expect(expected.length).toBe(9));

  it('renders them in rapidJSON as the published definitions allow', () => {
    const validate = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true })).compile(RAPID_SCHEMAS.coordInfo);
    const body = renderers.rapidjson.coord(runCoordQuery(world, query));
    expect(validate(body) ? [] : validate.errors).toEqual([]);
  });

  // No XML answer with sharing stations is known, so the xml renderer writes none (docs/dialects.md).
  for (const dialect of SIM_DIALECTS.filter((d) => d !== 'xml')) {
    it(`${dialect}: every station of the region, with its capacity per kind`, () => {
      const body = JSON.parse(JSON.stringify(renderers[dialect].coord(runCoordQuery(world, query))));
      const pins = dialects[dialect].parse.coordInfo(body, { requestedTypes: ['ANY'] });
      expect(pins.rejects).toEqual([]);
      const { records, rejects } = readSharingStations(pins.records);
      expect(rejects).toEqual([]);
      const got = records
        .map((r) => ({
          providerId: r.providerId, id: r.id, name: r.name, lon: r.coord.lon, lat: r.coord.lat, oos: r.outOfService,
          capacity: Object.fromEntries(Object.entries(r.slots).map(([k, c]) => [k, c.total])),
        }))
        .sort((a, b) => (`${a.providerId}/${a.id}` < `${b.providerId}/${b.id}` ? -1 : 1));
      expect(got).toEqual(expected);
    });
  }

  it('lists no station in a vehicle search (the snapshot\'s answers stay as they were)', () => {
    const vehicles = parseCoordQuery(new Params(new URLSearchParams(
      `boundingBox=&boundingBoxLU=${w}:${n}:WGS84[dd.ddddd]&boundingBoxRL=${e}:${s}:WGS84[dd.ddddd]&inclFilter=1&type_0=ANY&vehAtStation=1`,
    )));
    expect(runCoordQuery(world, vehicles, 'distance', new Date('2026-11-27T04:00:00Z')).pins.filter((p) => p.pin.key.startsWith('station:'))).toEqual([]);
  });
});

describe('real CoordInfo samples', () => {
  it('carry no sharing station, and reading them rejects nothing', () => {
    const coord = allSamples().samples.filter((sample) => sample.operation === 'coordInfo');
    expect(coord.length).toBeGreaterThan(0);
    for (const sample of coord) {
      const pins = dialects[sample.dialect].parse.coordInfo(sample.wgs84Body, {});
      expect(readSharingStations(pins.records), sample.file).toEqual({ records: [], rejects: [] });
    }
  });
});
