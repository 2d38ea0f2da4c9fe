import { describe, expect, it } from 'vitest';
import { decodeReply } from '../../src/efa/classify.js';
import {
  EfaHtmlPageError,
  EfaHttpStatusError,
  EfaNotJsonError,
  EfaParameterError,
  EfaShapeError,
  formatPath,
} from '../../src/efa/errors.js';
import { excerpt } from '../../src/efa/excerpt.js';
import { parseRetryAfter } from '../../src/efa/retry-after.js';

const source = { operation: 'coordInfo' as const, path: '/efa/XML_COORD_REQUEST', secrets: ['s3cr3t-key'] };

function reply(status: number, body: string, headers: Record<string, string> = {}) {
  return { status, body, headers, durationMs: 12 };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-03-05T10:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Tue, 05 Mar 2024 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 05 Mar 2024 09:00:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('excerpt', () => {
  it('collapses whitespace and cuts at 200 chars', () => {
    expect(excerpt('  a \n\t b  ')).toBe('a b');
    const long = excerpt('x'.repeat(500));
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
  });
  it('redacts secrets', () => {
    expect(excerpt('key=abc123&x=abc123', ['abc123'])).toBe('key=***&x=***');
    // The one redaction's: a URL's secret parameter is hidden by name, its value unknown beforehand.
    expect(excerpt('see https://efa.example/x?apikey=zz9&q=1')).toBe('see https://efa.example/x?apikey=***&q=1');
    expect(excerpt('bad key s3cr3t-key', ['s3cr3t-key'])).toBe('bad key ***');
  });
  it('formats zod paths', () => {
    expect(formatPath(['pins', 3, 'coord', 'lat'])).toBe('pins[3].coord.lat');
    expect(formatPath([])).toBe('(root)');
  });
});

describe('decodeReply', () => {
  it('returns the decoded body of a 2xx JSON reply', () => {
    expect(decodeReply(reply(200, '{"pins":[]}'), source)).toEqual({ pins: [] });
  });

  it('non-2xx → EfaHttpStatusError with status, operation, excerpt, retry hints', () => {
    const error = caught(() => decodeReply(reply(503, '<h1>  Service\n unavailable </h1>', { 'Retry-After': '7' }), source));
    expect(error).toBeInstanceOf(EfaHttpStatusError);
    if (!(error instanceof EfaHttpStatusError)) return;
    expect(error.name).toBe('EfaHttpStatusError');
    expect(error.status).toBe(503);
    expect(error.operation).toBe('coordInfo');
    expect(error.excerpt).toBe('<h1> Service unavailable </h1>');
    expect(error.retryable).toBe(true);
    expect(error.rateLimited).toBe(false);
    expect(error.retryAfterMs).toBe(7000);
    expect(error.message).toBe('coordInfo /efa/XML_COORD_REQUEST: HTTP 503: <h1> Service unavailable </h1>');
  });

  it.each([
    [429, true, true],
    [408, true, false],
    [500, true, false],
    [404, false, false],
    [400, false, false],
    [301, false, false],
  ])('status %i: retryable %s, rateLimited %s', (status, retryable, rateLimited) => {
    const error = caught(() => decodeReply(reply(status, ''), source));
    expect(error).toMatchObject({ status, retryable, rateLimited });
  });

  it('an HTML page is EfaHtmlPageError even with status 200', () => {
    const error = caught(() => decodeReply(reply(200, '\n<!DOCTYPE html><html><body>Wartung</body></html>'), source));
    expect(error).toBeInstanceOf(EfaHtmlPageError);
    expect(error).toMatchObject({ status: 200, retryable: true });
    const labelled = caught(() => decodeReply(reply(200, 'Maintenance', { 'content-type': 'text/html' }), source));
    expect(labelled).toBeInstanceOf(EfaHtmlPageError);
  });

  it('JSON labelled text/html is still JSON', () => {
    expect(decodeReply(reply(200, '{"infos":[]}', { 'Content-Type': 'text/html; charset=utf-8' }), source)).toEqual({ infos: [] });
  });

  it('truncated, empty or other bodies → retryable EfaNotJsonError', () => {
    const cut = caught(() => decodeReply(reply(200, '{"pins":[{"type":"STOP","name":"Hb'), source));
    expect(cut).toBeInstanceOf(EfaNotJsonError);
    expect(cut).toMatchObject({ retryable: true, status: 200 });
    expect(String(cut)).toContain('(truncated)');
    expect(String(caught(() => decodeReply(reply(200, '{"pins":[1,'), source)))).toContain('(truncated)');
    expect(String(caught(() => decodeReply(reply(200, '   '), source)))).toContain('(empty body)');
    expect(String(caught(() => decodeReply(reply(200, 'Service temporarily unavailable'), source)))).toContain('(invalid JSON)');
    // An XML answer is read (the xml dialect, issue 46), not an error; a cut one is retried like a cut JSON body.
    expect(() => decodeReply(reply(200, '<?xml version="1.0"?><itdRequest/>'), source)).not.toThrow();
    expect(caught(() => decodeReply(reply(200, '<?xml version="1.0"?><itdRequest><itdCoordInfoRequest>'), source))).toMatchObject({ retryable: true });
  });

  it('never puts a secret into message or excerpt', () => {
    const error = caught(() => decodeReply(reply(401, 'invalid key s3cr3t-key for /XML_COORD_REQUEST?key=s3cr3t-key'), source));
    expect(error).toBeInstanceOf(EfaHttpStatusError);
    expect(String(error)).not.toContain('s3cr3t-key');
    expect(error).toMatchObject({ excerpt: 'invalid key *** for /XML_COORD_REQUEST?key=***' });
  });
});

describe('other errors', () => {
  it('EfaShapeError is final and names the path', () => {
    const error = new EfaShapeError({ operation: 'opArea', path: '/XML_OPAREA_REQUEST', status: 200, excerpt: '{}' }, ['providers'], 'missing');
    expect(error.retryable).toBe(false);
    expect(error.path).toEqual(['providers']);
    expect(error.message).toBe('opArea /XML_OPAREA_REQUEST: unexpected JSON at providers (missing): {}');
  });

  it('EfaParameterError names the parameter', () => {
    const error = new EfaParameterError('coord.lat', 'too big', 'coordInfo');
    expect(error).toMatchObject({ name: 'EfaParameterError', parameter: 'coord.lat', operation: 'coordInfo', retryable: false });
    expect(error.message).toBe('coordInfo: invalid coord.lat: too big');
  });
});
