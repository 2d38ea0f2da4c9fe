import { describe, expect, it } from 'vitest';
import { EfaParameterError } from '../../src/efa/errors.js';
import { OPERATION_PATHS, OPERATIONS, isOperation, type Operation } from '../../src/efa/operations.js';
import { buildUrl, parseBaseUrl, resolvePaths } from '../../src/efa/url.js';
import { collectSecrets } from '../../src/util/redact.js';

describe('operations', () => {
  it('maps the five operations to their fixed paths', () => {
    expect(OPERATIONS).toEqual(['coordInfo', 'stopFinder', 'servingLines', 'addInfo', 'opArea']);
    expect(OPERATION_PATHS).toEqual({
      coordInfo: 'XML_COORD_REQUEST',
      stopFinder: 'XML_STOPFINDER_REQUEST',
      servingLines: 'XML_SERVINGLINES_REQUEST',
      addInfo: 'XML_ADDINFO_REQUEST',
      opArea: 'XML_OPAREA_REQUEST',
    });
    expect(Object.isFrozen(OPERATION_PATHS)).toBe(true);
  });

  it('has no way to name XML_COORDINFO_REQUEST', () => {
    // @ts-expect-error not an operation
    const wrong: Operation = 'coordInfoRequest';
    expect(isOperation(wrong)).toBe(false);
    expect(isOperation('XML_COORDINFO_REQUEST')).toBe(false);
    expect(Object.values(OPERATION_PATHS)).not.toContain('XML_COORDINFO_REQUEST');
    expect(() => resolvePaths({ coordInfo: 'XML_COORDINFO_REQUEST' })).toThrow(EfaParameterError);
    expect(() => resolvePaths({ coordInfo: '/efa2/XML_STOPFINDER_REQUEST' })).toThrow(/names another EFA operation/);
    // @ts-expect-error only operations can be overridden
    expect(() => resolvePaths({ coordinfo: '/x' })).toThrow(/paths\.coordinfo/);
  });

  it('applies gateway overrides and leaves the rest', () => {
    const paths = resolvePaths({ coordInfo: '/v1/tp/coord', addInfo: 'v1/tp/add_info' });
    expect(paths).toEqual({ ...OPERATION_PATHS, coordInfo: '/v1/tp/coord', addInfo: 'v1/tp/add_info' });
    expect(() => resolvePaths({ stopFinder: '' })).toThrow(/paths\.stopFinder/);
    expect(() => resolvePaths({ stopFinder: '/x?y=1' })).toThrow(/paths\.stopFinder/);
  });
});

describe('URL building', () => {
  it.each(['http://127.0.0.1:8080/efa', 'http://127.0.0.1:8080/efa/', 'http://127.0.0.1:8080/efa//'])(
    'joins %s with the path exactly once',
    (base) => {
      const url = buildUrl(parseBaseUrl(base), 'XML_COORD_REQUEST', [['outputFormat', 'JSON'], ['boundingBox', null]]);
      expect(url.href).toBe('http://127.0.0.1:8080/efa/XML_COORD_REQUEST?outputFormat=JSON&boundingBox');
    },
  );

  it('works on a bare host and keeps the base query ahead', () => {
    expect(buildUrl(parseBaseUrl('https://api.example.org'), '/v1/tp/coord', [['a', '1']]).href).toBe(
      'https://api.example.org/v1/tp/coord?a=1',
    );
    expect(buildUrl(parseBaseUrl('https://h/efa?apikey=K1#frag'), 'XML_ADDINFO_REQUEST', [['x', 'a b']]).href).toBe(
      'https://h/efa/XML_ADDINFO_REQUEST?apikey=K1&x=a+b',
    );
  });

  it('rejects bad base URLs without echoing them', () => {
    const error = (() => {
      try {
        parseBaseUrl('efa.example.org/?key=SECRET');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(EfaParameterError);
    expect(String(error)).not.toContain('SECRET');
    expect(() => parseBaseUrl('ftp://h/efa')).toThrow(/protocol/);
  });

  it('collects secrets from marked or secret-looking names', () => {
    const base = parseBaseUrl('https://user:pw1234@h/efa?apikey=K%2F1&lang=de&client=abc');
    const secrets = collectSecrets({ urls: [base], headers: { Authorization: 'Bearer tok-123456789', 'X-Client': 'abc', Accept: 'json' }, secretNames: ['client'] });
    expect(secrets).toContain('K/1');
    expect(secrets).toContain('K%2F1');
    expect(secrets).toContain('pw1234');
    expect(secrets).toContain('Bearer tok-123456789');
    expect(secrets).toContain('tok-123456789');
    expect(secrets).toContain('abc');
    expect(secrets).not.toContain('de');
    expect(secrets).not.toContain('json');
  });
});
