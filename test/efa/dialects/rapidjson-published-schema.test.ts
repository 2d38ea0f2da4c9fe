/**
 * The rapidJSON parsers against answers shaped by the interface's published schema (issue 19):
 * OpArea `operatingAreas[]` with GeoJSON zones, and the location.type enum.
 */
import { describe, expect, it } from 'vitest';
import { rapidJsonDialect } from '../../../src/efa/dialects/rapidjson.js';
import { ImplausibleCoordinatesError } from '../../../src/efa/parse/common.js';
import { toProviderRows } from '../../../src/relations/sharing.js';

const parse = rapidJsonDialect.parse;
const square = (x: number, y: number, d = 0.01): number[][] => [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
const area = (over: Record<string, unknown>) => ({ id: 1, name: 'A', operator: { id: 9, name: 'Op' }, product: 'bike', type: 'station', ...over });
const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('OpArea operatingAreas[]', () => {
  it('groups areas into one provider per operator, numbers as text, in answer order', () => {
    const { records, rejects } = parse.opArea({
      version: '10.4',
      operatingAreas: [
        area({ id: 1, operator: { id: 9, name: 'Op' }, product: 'bike', vehicleTypes: ['ELECTRIC'] }),
        area({ id: 2, operator: { id: 4, name: 'Other' }, product: 'car' }),
        area({ id: 3, operator: { id: 9, name: 'Op GmbH' }, product: 'motorcycle', sharingTypes: ['FREEFLOATING'] }),
      ],
    });
    expect(rejects).toEqual([]);
    expect(records.map((p) => [p.id, p.name, p.vehicleType, p.areas.map((a) => a.id)])).toEqual([
      ['9', 'Op', 'BIKE,MOTORCYCLE', ['1', '3']],
      ['4', 'Other', 'CAR', ['2']],
    ]);
    expect(records[0]?.attrs).toEqual({ products: ['bike', 'motorcycle'], areaTypes: ['station'], vehicleTypes: ['ELECTRIC'], sharingTypes: ['FREEFLOATING'], otherNames: ['Op GmbH'] });
  });

  it('keeps every polygon of a MultiPolygon and every hole, closing open rings', () => {
    const outer = square(7, 51, 0.1);
    const hole = square(7.02, 51.02, 0.02).slice(0, 4);
    const { records } = parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: { type: 'MultiPolygon', coordinates: [[outer, hole], [square(7.2, 51)]] } })] });
    const zone = records[0]?.areas[0];
    expect(zone?.polygons?.map((p) => p.length)).toEqual([2, 1]);
    expect(zone?.polygons?.[0]?.[1]).toHaveLength(5);
    expect(zone).toMatchObject({ ringsClosedByParser: true, coordOrder: 'ambiguous' });
  });

  it('reads the order off the values where they tell: a value beyond 90 is a longitude', () => {
    const lonFirst = parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: { type: 'Polygon', coordinates: [square(151.2, -33.9)] } })] });
    expect(lonFirst.records[0]?.areas[0]).toMatchObject({ coordOrder: 'lonLat' });
    expect(lonFirst.records[0]?.areas[0]?.polygons?.[0]?.[0]?.[0]).toEqual([151.2, -33.9]);
    const latFirst = parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: { type: 'Polygon', coordinates: [square(-33.9, 151.2)] } })] });
    expect(latFirst.records[0]?.areas[0]).toMatchObject({ coordOrder: 'latLon' });
    expect(latFirst.records[0]?.areas[0]?.polygons?.[0]?.[0]?.[0]).toEqual([151.2, -33.9]);
  });

  it('an ambiguous zone is turned when only the other order lies in the job’s region', () => {
    const [provider] = parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: { type: 'Polygon', coordinates: [square(51.4, 6.9)] } })] }).records;
    const inEssen = (rings: readonly (readonly (readonly [number, number])[])[]) => rings.every((r) => r.every(([lon, lat]) => lon > 6 && lon < 8 && lat > 51 && lat < 52));
    const [row] = toProviderRows(provider!, inEssen).areas;
    expect(row).toMatchObject({ in_region: true, attrs: { coordOrder: 'latLon', coordOrderBy: 'region' } });
    expect(JSON.parse(row?.geojson ?? 'null')).toMatchObject({ type: 'Polygon', coordinates: [[[6.9, 51.4], [6.9, 51.41]]].map((r) => expect.arrayContaining(r)) });
    // Without a region that says otherwise, GeoJSON's own order stands.
    expect(toProviderRows(provider!).areas[0]?.attrs).toMatchObject({ coordOrder: 'lonLat', coordOrderBy: 'region' });
    expect(toProviderRows(provider!, () => false).areas[0]?.attrs).toMatchObject({ coordOrder: 'lonLat', coordOrderBy: 'GeoJSON' });
  });

  it('a point or a line is no area: no geometry, the zone kept as sent', () => {
    const zone = { type: 'LineString', coordinates: [[7, 51], [7.1, 51.1]] };
    const { records } = parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: zone })] });
    expect(records[0]?.areas[0]).toMatchObject({ polygons: null, attrs: { operatingZone: zone, operatingZoneNotAreal: ['LineString'] } });
  });

  it('rejects an area without its operator or with a broken zone, naming the field', () => {
    const { records, rejects } = parse.opArea({
      version: '1',
      operatingAreas: [
        { id: 1, name: 'No operator' },
        area({ id: 2, operatingZone: { type: 'Polygon', coordinates: [[[7, 51], [7.1, 'x'], [7.1, 51.1], [7, 51]]] } }),
        area({ id: 3, operatingZone: { type: 'Circle', radius: 5 } }),
        area({ id: 4 }),
      ],
    });
    expect(records.flatMap((p) => p.areas.map((a) => a.id))).toEqual(['4']);
    expect(rejects.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^operatingAreas\[0\]\.operator/),
      expect.stringMatching(/^operatingAreas\[1\]\.operatingZone\.coordinates\[0\]\[1\]\[1\]: expected a number/),
      expect.stringMatching(/^operatingAreas\[2\]\.operatingZone\.type: expected a GeoJSON geometry type/),
    ]);
  });

  it('a zone in a projected grid stops the run, at the area’s path', () => {
    const error = thrown(() => parse.opArea({ version: '1', operatingAreas: [area({ operatingZone: { type: 'Polygon', coordinates: [[[3513912, 5402186], [3513999, 5402186], [3513999, 5402199], [3513912, 5402186]]] } })] }));
    expect(error).toBeInstanceOf(ImplausibleCoordinatesError);
    expect((error as ImplausibleCoordinatesError).path).toEqual(['operatingAreas', 0, 'operatingZone']);
  });

  it('is recognised as rapidJSON, with or without the version envelope; no list is a shape error naming both', () => {
    expect(rapidJsonDialect.detect({ operatingAreas: [] })).toBe(true);
    expect(rapidJsonDialect.detect({ version: '10.4', operatingAreas: [] })).toBe(true);
    expect(thrown(() => parse.opArea({ version: '10.4' }))).toMatchObject({ path: ['operatingAreas'], problem: expect.stringContaining('providers[]') });
  });
});

describe('location.type of the published schema', () => {
  const types: Record<string, string> = {
    address: 'STREET', crossing: 'STREET', gis: 'GIS_POINT', locality: 'GIS_AREA', platform: 'BUS_POINT', poi: 'POI_POINT', suburb: 'GIS_AREA',
    stop: 'STOP', street: 'STREET', poiHierarchy: 'POI_POINT', sharing: 'SHARING', parking: 'PARKING',
  };
  it('maps every word to an object type and keeps the word in attrs.rapidType', () => {
    const locations = Object.keys(types).map((type, i) => ({ id: `L${i}`, name: type, type, coord: [48.7 + i / 100, 9.1] }));
    const { records, rejects } = parse.coordInfo({ version: '1', locations }, { requestedTypes: ['ANY'] });
    expect(rejects).toEqual([]);
    expect(Object.fromEntries(records.map((p) => [p.attrs['rapidType'], p.type]))).toEqual(types);
  });

  it('`unknown` is the requested type when the request asked for one, else a reject', () => {
    const body = { version: '1', locations: [{ id: 'U', name: 'u', type: 'unknown', coord: [48.7, 9.1] }] };
    expect(parse.coordInfo(body, { requestedTypes: ['STOP'] }).records[0]?.type).toBe('STOP');
    expect(parse.coordInfo(body, { requestedTypes: ['ANY'] }).rejects[0]?.reason).toContain('"unknown" names none of the object types');
  });
});
