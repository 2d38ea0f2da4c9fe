import { describe, expect, it } from 'vitest';
import { parseProviders } from '../../src/efa/parse/providers.js';
import { latLonToPosition, toClosedRing } from '../../src/efa/parse/rings.js';
import { providerSchema } from '../../src/efa/records.js';

describe('ring order conversion', () => {
  it('turns the API’s [lat, lon] into [lon, lat]', () => {
    expect(latLonToPosition([48.7, 9.1])).toEqual([9.1, 48.7]);
  });

  it('closes an unclosed ring and says so', () => {
    expect(toClosedRing([[48.7, 9.1], [48.7, 9.2], [48.8, 9.2]], [])).toEqual({
      ring: [[9.1, 48.7], [9.2, 48.7], [9.2, 48.8], [9.1, 48.7]],
      closedByParser: true,
    });
  });

  it('leaves a closed ring alone', () => {
    expect(toClosedRing([[48.7, 9.1], [48.7, 9.2], [48.8, 9.2], [48.7, 9.1]], [])).toEqual({
      ring: [[9.1, 48.7], [9.2, 48.7], [9.2, 48.8], [9.1, 48.7]],
      closedByParser: false,
    });
  });
});

describe('parseProviders (json)', () => {
  const closed = [
    [48.7, 9.1],
    [48.7, 9.2],
    [48.8, 9.2],
    [48.8, 9.1],
    [48.7, 9.1],
  ];

  it('maps providers and converts polygons to closed [lon, lat] rings', () => {
    const { records, rejects } = parseProviders({
      providers: [
        {
          id: 'nextbike',
          name: 'nextbike',
          vehicleType: 'BIKE',
          website: 'https://nextbike.de',
          areas: [
            { id: 'A1', name: 'Mitte', polygon: closed, colour: 'red' },
            { id: 'A2', name: 'Ost', polygon: [[48.75, 9.2], [48.75, 9.25], [48.78, 9.25]] },
            { id: 'A3', name: 'No geometry' },
          ],
        },
        { id: 'stadtmobil', name: 'stadtmobil', vehicleType: 'CAR' },
      ],
    });
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      {
        id: 'nextbike',
        name: 'nextbike',
        vehicleType: 'BIKE',
        areas: [
          {
            id: 'A1',
            name: 'Mitte',
            polygons: [[[[9.1, 48.7], [9.2, 48.7], [9.2, 48.8], [9.1, 48.8], [9.1, 48.7]]]],
            ringsClosedByParser: false,
            attrs: { colour: 'red' },
          },
          {
            id: 'A2',
            name: 'Ost',
            polygons: [[[[9.2, 48.75], [9.25, 48.75], [9.25, 48.78], [9.2, 48.75]]]],
            ringsClosedByParser: true,
            attrs: {},
          },
          { id: 'A3', name: 'No geometry', polygons: null, ringsClosedByParser: false, attrs: {} },
        ],
        attrs: { website: 'https://nextbike.de' },
      },
      { id: 'stadtmobil', name: 'stadtmobil', vehicleType: 'CAR', areas: [], attrs: {} },
    ]);
    for (const provider of records) expect(providerSchema.parse(provider)).toEqual(provider);
  });

  it('accepts a list of rings (outer ring and hole)', () => {
    const hole = [[48.72, 9.12], [48.72, 9.15], [48.75, 9.15]];
    const { records } = parseProviders({
      providers: [{ id: 'p', name: 'P', vehicleType: 'SCOOTER', areas: [{ id: 'a', name: 'A', polygon: [closed, hole] }] }],
    });
    const area = records[0]?.areas[0];
    expect(area?.polygons?.[0]?.length).toBe(2);
    expect(area?.polygons?.[0]?.[1]).toEqual([[9.12, 48.72], [9.15, 48.72], [9.15, 48.75], [9.12, 48.72]]);
    expect(area?.ringsClosedByParser).toBe(true);
  });

  it('rejects the provider of a broken area with the path of the problem', () => {
    const { records, rejects } = parseProviders({
      providers: [
        { id: 'p1', name: 'P1', vehicleType: 'BIKE', areas: [{ id: 'a', polygon: [[48.7, 9.1], [95, 9.2], [48.8, 9.3]] }] },
        { id: 'p2', name: 'P2', vehicleType: 'BIKE', areas: [{ id: 'a', polygon: [[48.7, 9.1], [48.7, 9.1], [48.8, 9.2]] }] },
        { id: 'p3', name: 'P3', vehicleType: 'BIKE', areas: [{ id: 'a', polygon: [[48.7, 9.1, 3]] }] },
        { id: 'p4', name: 'P4', areas: [] },
        { id: 'p5', name: 'P5', vehicleType: 'BIKE', areas: [{ name: 'no id' }] },
      ],
    });
    expect(records).toEqual([]);
    expect(rejects.map((reject) => reject.reason.split(':')[0])).toEqual([
      'providers[0].areas[0].polygon[1][0]',
      'providers[1].areas[0].polygon[0]',
      'providers[2].areas[0].polygon[0]',
      'providers[3].vehicleType',
      'providers[4].areas[0].id',
    ]);
    expect(rejects[1]?.reason).toContain('2 distinct point(s)');
  });
});
