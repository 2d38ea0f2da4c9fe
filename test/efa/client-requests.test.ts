import { describe, expect, it } from 'vitest';
import { createEfaClient } from '../../src/efa/client.js';
import type { Dialect } from '../../src/efa/dialect.js';
import { jsonDialect } from '../../src/efa/dialects/json.js';
import { EfaParameterError } from '../../src/efa/errors.js';
import { FakeTransport, json, pinsBody, rejection, RetryingScheduler, setup, stop } from './fakes.js';

describe('createEfaClient: requests', () => {
  it('builds the URL (dialect params first), sends headers and operation, returns records and messages', async () => {
    const { transport, scheduler, client } = setup([json(pinsBody)], { headers: { 'User-Agent': 'efa-sync/test' } });
    const result = await client.coordInfoBox({ bbox: [9.05, 48.7, 9.3, 48.85], filters: [{ type: 'STOP' }], max: 500 });
    const request = transport.requests[0];
    expect(request?.url.href).toBe(
      'http://127.0.0.1:8080/efa/XML_COORD_REQUEST?outputFormat=JSON&boundingBox' +
        '&boundingBoxLU=9.050000%3A48.850000%3AWGS84%5Bdd.ddddd%5D' +
        '&boundingBoxRL=9.300000%3A48.700000%3AWGS84%5Bdd.ddddd%5D&inclFilter=1&type_0=STOP&max=500',
    );
    expect(request?.url.searchParams.get('boundingBoxLU')).toBe('9.050000:48.850000:WGS84[dd.ddddd]');
    expect(request?.headers).toEqual({ 'User-Agent': 'efa-sync/test' });
    expect(request?.operation).toBe('coordInfo');
    expect(scheduler.operations).toEqual(['coordInfo']);
    expect(result).toEqual({
      records: [
        { type: 'STOP', id: 'de:08111:6118', name: 'Hauptbahnhof', coord: { lat: 48.7843, lon: 9.1819 }, motTypes: [1, 3], globalId: 'de:08111:6118', attrs: {} },
      ],
      rejects: [],
      messages: [{ type: 'warning', code: '12', text: 'capped', attrs: {} }],
      status: 200,
      durationMs: 5,
      attempts: 1,
    });
  });

  it.each([
    ['http://h:1/efa/', 'http://h:1/efa/XML_STOPFINDER_REQUEST?outputFormat=JSON&name_sf=Hbf&type_sf=any'],
    ['http://h:1/efa', 'http://h:1/efa/XML_STOPFINDER_REQUEST?outputFormat=JSON&name_sf=Hbf&type_sf=any'],
    ['http://h:1', 'http://h:1/XML_STOPFINDER_REQUEST?outputFormat=JSON&name_sf=Hbf&type_sf=any'],
  ])('base URL %s', async (baseUrl, expected) => {
    const { transport, client } = setup([json({ locations: [] })], { baseUrl });
    await client.stopFinder({ type: 'any', name: 'Hbf' });
    expect(transport.requests[0]?.url.href).toBe(expected);
  });

  it('applies path overrides per operation', async () => {
    const { transport, client } = setup([json({ pins: [] })], {
      baseUrl: 'https://api.example.org/',
      paths: { coordInfo: '/v1/tp/coord' },
    });
    await client.coordInfoCircle({ coord: { lon: 151.2153, lat: -33.8568 }, filters: [{ type: 'STOP', radius: 1000 }] });
    expect(transport.requests[0]?.url.pathname).toBe('/v1/tp/coord');
    expect(transport.requests[0]?.url.searchParams.get('coord')).toBe('151.215300:-33.856800:WGS84[dd.ddddd]');
  });

  it('sends each method to its operation path', async () => {
    const { transport, client } = setup([
      json({ locations: [] }),
      json({ servingLines: [] }),
      json({ servingLines: [] }),
      json({ infos: [] }),
      json({ providers: [] }),
      json({ pins: [] }),
    ]);
    await client.stopFinder({ type: 'any', name: 'x' });
    await client.servingLinesAtStop({ stopId: 'de:1' });
    await client.servingLinesByName({ lineName: 'S1' });
    await client.addInfo();
    await client.opArea({ opareaSM: 'ALL' });
    const detail = await client.vehicleDetail({ sharingRef: { id: 'V', operatorId: 'O', opAreaId: 'A' } });
    expect(transport.requests.map((r) => [r.operation, r.url.pathname])).toEqual([
      ['stopFinder', '/efa/XML_STOPFINDER_REQUEST'],
      ['servingLines', '/efa/XML_SERVINGLINES_REQUEST'],
      ['servingLines', '/efa/XML_SERVINGLINES_REQUEST'],
      ['addInfo', '/efa/XML_ADDINFO_REQUEST'],
      ['opArea', '/efa/XML_OPAREA_REQUEST'],
      ['coordInfo', '/efa/XML_COORD_REQUEST'],
    ]);
    expect(transport.requests.every((r) => r.url.searchParams.get('outputFormat') === 'JSON')).toBe(true);
    expect(detail.raw).toEqual({ pins: [] });
  });

  it('validates options before sending anything', async () => {
    const { transport, client } = setup([json({ pins: [] })]);
    const error = await rejection(client.coordInfoCircle({ coord: { lon: 9, lat: 99 }, filters: [{ type: 'STOP' }] }));
    expect(error).toBeInstanceOf(EfaParameterError);
    expect(error).toMatchObject({ parameter: 'coord.lat', operation: 'coordInfo' });
    expect(transport.requests).toHaveLength(0);
  });

  it('refuses a bad base URL and a path naming another operation', () => {
    const base = { transport: new FakeTransport([]), scheduler: new RetryingScheduler() };
    expect(() => createEfaClient({ ...base, baseUrl: 'not a url' })).toThrow(EfaParameterError);
    expect(() => createEfaClient({ ...base, baseUrl: 'http://h', paths: { coordInfo: 'XML_COORDINFO_REQUEST' } })).toThrow(
      /paths\.coordInfo/,
    );
  });

  it('returns rejects and, when asked, the raw body', async () => {
    const body = { pins: [stop, { type: 'STOP', name: 'far', coord: { lat: 123, lon: 9 } }] };
    const { client } = setup([json(body)], { keepRaw: true });
    const result = await client.coordInfoCircle({ coord: { lon: 9.18, lat: 48.78 }, filters: [{ type: 'STOP' }] });
    expect(result.records.map((pin) => pin.id)).toEqual(['de:08111:6118']);
    expect(result.rejects).toEqual([
      { operation: 'coordInfo', reason: "pins[1].coord: 9,123 is not a WGS84 coordinate: a stray value, not the server's grid (1 of 2 records of the answer)", raw: body.pins[1] },
    ]);
    expect(result.raw).toEqual(body);
  });
});

describe('createEfaClient: dialects', () => {
  it('takes its extra parameters and parsers from the dialect', async () => {
    const seen: unknown[] = [];
    const fake: Dialect = {
      ...jsonDialect,
      name: 'fake',
      extraParams: (operation) => [
        ['outputFormat', 'rapidJSON'],
        ['op', operation],
      ],
      parse: {
        ...jsonDialect.parse,
        stopFinder: (body) => {
          seen.push(body);
          return { records: [{ id: 'X', name: 'x', type: 'stop', isBest: true, matchQuality: 1, attrs: {} }], rejects: [] };
        },
      },
    };
    const { transport, client } = setup([json({ anything: true })], { dialect: fake });
    const result = await client.stopFinder({ type: 'any', name: 'x' });
    expect(transport.requests[0]?.url.search).toBe('?outputFormat=rapidJSON&op=stopFinder&name_sf=x&type_sf=any');
    expect(seen).toEqual([{ anything: true }]);
    expect(result.records[0]?.id).toBe('X');
    expect(client.dialect.name).toBe('fake');
  });

  it('json dialect detects its own bodies', () => {
    expect(jsonDialect.detect({ pins: [] })).toBe(true);
    expect(jsonDialect.detect({ locations: [{ id: 'a', coord: { lat: 1, lon: 2 } }] })).toBe(true);
    expect(jsonDialect.detect({ locations: [{ id: 'a', coord: [48.7, 9.1] }] })).toBe(false);
    expect(jsonDialect.detect({ stopFinder: { points: [] } })).toBe(false);
    expect(jsonDialect.detect('x')).toBe(false);
  });
});
