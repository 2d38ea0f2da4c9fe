import { describe, expect, it } from 'vitest';
import { EfaHtmlPageError, EfaHttpStatusError, EfaNotJsonError, EfaShapeError } from '../../src/efa/errors.js';
import { HttpTimeoutError } from '../../src/http/errors.js';
import { json, pinsBody, rejection, setup, text } from './fakes.js';

describe('createEfaClient: failures', () => {
  const circle = { coord: { lon: 9.18, lat: 48.78 }, filters: [{ type: 'STOP' as const }] };

  it('retries a 503 with Retry-After and succeeds', async () => {
    const { transport, scheduler, client } = setup([text('busy', 503, { 'Retry-After': '2' }), json(pinsBody)]);
    const result = await client.coordInfoCircle(circle);
    expect(result.attempts).toBe(2);
    expect(transport.requests).toHaveLength(2);
    expect(scheduler.retryAfters).toEqual([2000]);
  });

  it('gives up on a persistent 429 with a rate-limited EfaHttpStatusError', async () => {
    const { transport, client } = setup([text('  Too   many\nrequests ', 429, { 'retry-after': '5' })]);
    const error = await rejection(client.coordInfoCircle(circle));
    expect(error).toBeInstanceOf(EfaHttpStatusError);
    expect(error).toMatchObject({
      status: 429,
      operation: 'coordInfo',
      excerpt: 'Too many requests',
      retryable: true,
      rateLimited: true,
      retryAfterMs: 5000,
    });
    expect(transport.requests).toHaveLength(3);
  });

  it('does not retry a 404', async () => {
    const { transport, client } = setup([text('not found', 404)]);
    const error = await rejection(client.addInfo({ filterPublicationStatus: 'current' }));
    expect(error).toMatchObject({ name: 'EfaHttpStatusError', status: 404, operation: 'addInfo', retryable: false });
    expect(String(error)).toBe('EfaHttpStatusError: addInfo /efa/XML_ADDINFO_REQUEST: HTTP 404: not found');
    expect(transport.requests).toHaveLength(1);
  });

  it('retries a truncated body inside the scheduler attempt', async () => {
    const full = JSON.stringify(pinsBody);
    const { transport, client } = setup([text(full.slice(0, 40)), json(pinsBody)]);
    const result = await client.coordInfoCircle(circle);
    expect(result.records).toHaveLength(1);
    expect(transport.requests).toHaveLength(2);
  });

  it('a body that stays broken ends in EfaNotJsonError', async () => {
    const { transport, client } = setup([text('{"pins":[{"type":"ST')]);
    const error = await rejection(client.coordInfoCircle(circle));
    expect(error).toBeInstanceOf(EfaNotJsonError);
    expect(error).toMatchObject({ status: 200, operation: 'coordInfo', excerpt: '{"pins":[{"type":"ST' });
    expect(transport.requests).toHaveLength(3);
  });

  it('an HTML page with status 200 is EfaHtmlPageError, retried', async () => {
    const page = text('<!doctype html><html><head><title>Wartung</title></head></html>', 200, { 'content-type': 'text/html' });
    const { transport, client } = setup([page, page, json({ locations: [] })]);
    expect((await client.stopFinder({ type: 'any', name: 'x' })).attempts).toBe(3);
    const again = setup([page]);
    const error = await rejection(again.client.stopFinder({ type: 'any', name: 'x' }));
    expect(error).toBeInstanceOf(EfaHtmlPageError);
    expect(transport.requests).toHaveLength(3);
  });

  it('JSON of the wrong shape is EfaShapeError and is not retried', async () => {
    const { transport, client } = setup([json({ locations: [] })]);
    const error = await rejection(client.coordInfoCircle(circle));
    expect(error).toBeInstanceOf(EfaShapeError);
    expect(error).toMatchObject({ path: ['pins'], status: 200, operation: 'coordInfo', retryable: false });
    expect(String(error)).toContain('unexpected JSON at pins (missing)');
    expect(transport.requests).toHaveLength(1);
  });

  it('transport errors pass through the scheduler unchanged', async () => {
    const timeout = new HttpTimeoutError('opArea', 100);
    const { transport, client } = setup([timeout, json({ providers: [] })]);
    expect((await client.opArea({ opareaSM: 'ALL' })).attempts).toBe(2);
    expect(transport.requests).toHaveLength(2);
  });

  it('never puts secrets from the URL or headers into errors', async () => {
    const echo = 'Invalid credentials for /efa/XML_COORD_REQUEST?apikey=Q-SECRET-1&token=T0K3N-XYZ; header ABCDEF-HEADER-KEY';
    const { client } = setup([text(echo, 401)], {
      baseUrl: 'https://h/efa?apikey=Q-SECRET-1&token=T0K3N-XYZ',
      headers: { 'X-Api-Key': 'ABCDEF-HEADER-KEY' },
    });
    const error = await rejection(client.coordInfoCircle(circle));
    expect(error).toBeInstanceOf(EfaHttpStatusError);
    const everything = `${String(error)} ${JSON.stringify(error)} ${error instanceof Error ? error.stack : ''}`;
    for (const secret of ['Q-SECRET-1', 'T0K3N-XYZ', 'ABCDEF-HEADER-KEY']) expect(everything).not.toContain(secret);
    expect(error).toMatchObject({
      excerpt: 'Invalid credentials for /efa/XML_COORD_REQUEST?apikey=***&token=***; header ***',
    });
  });

  it('redacts parameters the caller marks secret', async () => {
    const { client } = setup([text('client=acme-42 unknown', 403)], {
      baseUrl: 'https://h/efa?client=acme-42',
      secretNames: ['client'],
    });
    const error = await rejection(client.addInfo());
    expect(error).toMatchObject({ excerpt: 'client=*** unknown' });
  });
});

