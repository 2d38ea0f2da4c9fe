import { describe, expect, it } from 'vitest';
import { ImplausibleCoordinatesError, ShapeMismatchError } from '../../src/efa/parse/common.js';
import { parseLocations } from '../../src/efa/parse/locations.js';
import { parsePins } from '../../src/efa/parse/pins.js';
import { locationSchema, pinSchema } from '../../src/efa/records.js';

describe('parsePins (json)', () => {
  it('maps a stop and a POI without id; unknown fields go to attrs', () => {
    const { records, rejects } = parsePins({
      pins: [
        { type: 'STOP', id: 'de:08111:6118', name: 'Hauptbahnhof', coord: { lat: 48.7843, lon: 9.1819 }, motTypes: '1,3,5', desc: 'x' },
        { type: 'POI_POINT', name: 'Staatsgalerie', coord: { lat: 48.7801, lon: 9.1873 }, poiType: 'museum' },
      ],
    });
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      {
        type: 'STOP',
        id: 'de:08111:6118',
        name: 'Hauptbahnhof',
        coord: { lat: 48.7843, lon: 9.1819 },
        motTypes: [1, 3, 5],
        // An id of the IFOPT/DHID form is the stop's global id.
        globalId: 'de:08111:6118',
        attrs: { desc: 'x' },
      },
      { type: 'POI_POINT', name: 'Staatsgalerie', coord: { lat: 48.7801, lon: 9.1873 }, motTypes: [], attrs: { poiType: 'museum' } },
    ]);
    for (const pin of records) expect(pinSchema.parse(pin)).toEqual(pin);
  });

  it('is tolerant about motTypes and ids', () => {
    const { records } = parsePins({
      pins: [
        { type: 'STOP', id: 6118, name: 'A', coord: { lat: 1, lon: 2 }, motTypes: '' },
        { type: 'STOP', id: '', name: 'B', coord: { lat: 1, lon: 2 }, motTypes: ' 4 , 10,' },
        { type: 'STOP', id: null, name: 'C', coord: { lat: 1, lon: 2 }, motTypes: [2, '7'] },
        { type: 'STOP', name: 'D', coord: { lat: 1, lon: 2 }, motTypes: null },
      ],
    });
    expect(records.map((pin) => [pin.id, pin.motTypes])).toEqual([
      ['6118', []],
      [undefined, [4, 10]],
      [undefined, [2, 7]],
      [undefined, []],
    ]);
    expect('id' in (records[1] ?? {})).toBe(false);
  });

  it('rejects records with missing fields, wrong types or coordinates out of range, keeping the raw record', () => {
    const broken = [
      { type: 'STOP', id: 'a', coord: { lat: 48.7, lon: 9.1 } },
      { type: 'STOP', id: 'b', name: 'B', coord: { lat: '48.7', lon: 9.1 } },
      { type: 'STOP', id: 'c', name: 'C', coord: { lat: 91, lon: 9.1 } },
      { type: 'STOP', id: 'd', name: 'D', coord: { lat: 48.7, lon: -181 } },
      { type: 'STOP', id: 'e', name: 'E', coord: { lat: 48.7, lon: 9.1 }, motTypes: '1,bus' },
      { id: 'f', name: 'F', coord: { lat: 48.7, lon: 9.1 } },
      { type: 'STOP', id: 'g', name: 'G' },
      'not a pin',
    ];
    const { records, rejects } = parsePins({ pins: [{ type: 'STOP', id: 'ok', name: 'OK', coord: { lat: 0, lon: 0 } }, ...broken] });
    expect(records.map((pin) => pin.id)).toEqual(['ok']);
    // A coordinate out of range is judged with the whole answer, as in every dialect: two of nine
    // records are stray values (rejects, told after the others), not the server's grid.
    const stray = [broken[2], broken[3]];
    expect(rejects.map((reject) => reject.raw)).toEqual([...broken.filter((b) => !stray.includes(b)), ...stray]);
    expect(rejects.every((reject) => reject.operation === 'coordInfo')).toBe(true);
    expect(rejects.map((reject) => reject.reason.split(':')[0])).toEqual([
      'pins[1].name',
      'pins[2].coord.lat',
      'pins[5].motTypes',
      'pins[6].type',
      'pins[7].coord',
      'pins[8]',
      'pins[3].coord',
      'pins[4].coord',
    ]);
    expect(rejects[6]?.reason).toContain('9.1,91 is not a WGS84 coordinate: a stray value');
  });

  it("an answer whose coordinates are the server's grid stops the run (ImplausibleCoordinatesError), as in every dialect", () => {
    const grid = [1, 2, 3, 4].map((i) => ({ type: 'STOP', id: `g${i}`, name: `G${i}`, coord: { lat: 5_400_000 + i, lon: 3_500_000 + i } }));
    expect(() => parsePins({ pins: grid })).toThrow(ImplausibleCoordinatesError);
    expect(() => parseLocations({ locations: grid.map((g) => ({ ...g, matchQuality: 900 })) })).toThrow(ImplausibleCoordinatesError);
  });

  it('throws ShapeMismatchError when there is no pins list', () => {
    expect(() => parsePins({ error: 'oops' })).toThrow(ShapeMismatchError);
    expect(() => parsePins({ pins: {} })).toThrow(/pins: expected an array/);
    expect(() => parsePins([])).toThrow(/expected a JSON object, got an array/);
    expect(() => parsePins(null)).toThrow(ShapeMismatchError);
    expect(parsePins({ pins: [] })).toEqual({ records: [], rejects: [] });
  });
});

describe('parseLocations (json)', () => {
  it('maps locations with coordinates and assigned stops', () => {
    const { records, rejects } = parseLocations({
      locations: [
        {
          id: 'de:08111:6118',
          name: 'Stuttgart, Hauptbahnhof',
          type: 'stop',
          isBest: true,
          matchQuality: 950,
          coord: { lat: 48.7843, lon: 9.1819 },
          assignedStops: [{ id: 'de:08111:6008', name: 'Arnulf-Klett-Platz', distance: 120 }],
          parent: 'Stuttgart',
        },
        { id: 'streetID:1', name: 'Königstraße', type: 'street', matchQuality: '712.5' },
      ],
    });
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      {
        id: 'de:08111:6118',
        name: 'Stuttgart, Hauptbahnhof',
        type: 'stop',
        isBest: true,
        matchQuality: 950,
        coord: { lat: 48.7843, lon: 9.1819 },
        assignedStops: [{ id: 'de:08111:6008', name: 'Arnulf-Klett-Platz', attrs: { distance: 120 } }],
        globalId: 'de:08111:6118',
        attrs: { parent: 'Stuttgart' },
      },
      { id: 'streetID:1', name: 'Königstraße', type: 'street', isBest: false, matchQuality: 712.5, attrs: {} },
    ]);
    for (const location of records) expect(locationSchema.parse(location)).toEqual(location);
  });

  it('rejects a location without id, with a bad quality or a bad coordinate', () => {
    const { records, rejects } = parseLocations({
      locations: [
        { name: 'no id', type: 'stop', matchQuality: 1 },
        { id: 'x', name: 'X', type: 'stop', matchQuality: 'high' },
        { id: 'y', name: 'Y', type: 'stop', matchQuality: 1, coord: { lat: 48.7, lon: Number.NaN } },
        { id: 'z', name: 'Z', type: 'stop', matchQuality: 1, isBest: 'yes' },
      ],
    });
    expect(records).toEqual([]);
    expect(rejects.map((reject) => reject.reason.split(':')[0])).toEqual([
      'locations[0].id',
      'locations[1].matchQuality',
      'locations[2].coord.lon',
      'locations[3].isBest',
    ]);
  });
});
