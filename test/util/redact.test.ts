import { describe, expect, it } from 'vitest';
import { redactUrl as dbRedactUrl } from '../../src/db/connect.js';
import { redactSecretsInText, redactFields } from '../../src/util/log.js';
import { collectSecrets, isSecretName, redactDeep, redactReplyBody, redactText, redactUrl } from '../../src/util/redact.js';

describe('isSecretName', () => {
  it('knows credential parameter and header names, by word', () => {
    for (const name of ['key', 'apikey', 'api_key', 'apiKey', 'X-Api-Key', 'token', 'access_token', 'sig', 'signature', 'X-Amz-Signature',
      'secret', 'client_secret', 'password', 'passwd', 'auth', 'Authorization', 'Proxy-Authorization', 'Cookie', 'sessionId', 'X-Auth-Token']) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it('leaves harmless names alone, also those that merely contain a secret word', () => {
    for (const name of ['Accept-Language', 'name_sf', 'assignedStops', 'outputFormat', 'coordOutputFormat', 'monkey', 'User-Agent', 'lang']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe('redactUrl', () => {
  it('replaces the password and secret-named query values and keeps the rest', () => {
    expect(redactUrl(new URL('https://user:pw@efa.example/efa/XML_STOPFINDER_REQUEST?name_sf=Hbf&api_key=abc&Token=t&sig=s'))).toBe(
      'https://user:***@efa.example/efa/XML_STOPFINDER_REQUEST?name_sf=Hbf&api_key=***&Token=***&sig=***',
    );
  });

  it('replaces a lone user name (a token in user-info position)', () => {
    expect(redactUrl('https://ghp_abcdef@efa.example/efa')).toBe('https://***@efa.example/efa');
  });

  it('keeps nothing of a string it cannot parse', () => {
    expect(redactUrl('not a url ?key=abc')).toBe('[unparseable url]');
  });

  it('is what the database and EFA modules use', () => {
    expect(dbRedactUrl('postgres://etl:s3cret@db/efa?sslpassword=x')).toBe('postgres://etl:***@db/efa?sslpassword=***');
    expect(dbRedactUrl('pglite:./.efa-sync/db')).toBe('pglite:./.efa-sync/db');
  });
});

describe('collectSecrets', () => {
  it('gathers URL passwords, secret parameters in every encoding, secret header values and extra values', () => {
    const secrets = collectSecrets({
      urls: ['https://user:p%40ss@h/efa?apikey=K%2F1&lang=de', undefined, 'postgres://etl:dbpw@db/x'],
      headers: { Authorization: 'Bearer tok-123456789', 'Accept-Language': 'de-DE' },
      values: ['envpass'],
    });
    for (const value of ['p%40ss', 'p@ss', 'K/1', 'K%2F1', 'Bearer tok-123456789', 'tok-123456789', 'dbpw', 'envpass']) {
      expect(secrets, value).toContain(value);
    }
    expect(secrets).not.toContain('de');
    expect(secrets).not.toContain('de-DE');
    // Longest first, so "Bearer tok-…" is replaced whole before "tok-…" could split it.
    expect(secrets.indexOf('Bearer tok-123456789')).toBeLessThan(secrets.indexOf('tok-123456789'));
  });

  it('treats names the caller marks as secret like secret-looking ones', () => {
    const secrets = collectSecrets({ urls: [new URL('https://h/efa?client=abc')], headers: { 'X-Client': 'xyz9' }, secretNames: ['client', 'X-Client'] });
    expect(secrets).toEqual(expect.arrayContaining(['abc', 'xyz9']));
  });
});

describe('redactText', () => {
  it('cuts known values and redacts URLs with credentials, leaving other URLs as written', () => {
    const text = 'upstream said "bad key tok-123456789" for https://u:pw@h/efa?token=zz&x=1 (see http://docs.example/efa)';
    expect(redactText(text, ['tok-123456789'])).toBe(
      'upstream said "bad key ***" for https://u:***@h/efa?token=***&x=1 (see http://docs.example/efa)',
    );
  });

  it('does not shred text for a one- or two-character value, which still goes by name in URLs', () => {
    const secrets = collectSecrets({ urls: ['https://h/efa?sessionID=0&key=de'] });
    expect(redactText('tile 10 of 20, lang de, see https://h/efa?sessionID=0', secrets)).toBe('tile 10 of 20, lang de, see https://h/efa?sessionID=***');
  });

  it('keeps serialised JSON parseable: a URL never swallows the closing quote', () => {
    // The old regex consumed `"` after ?apikey=…, so every run with such a baseUrl exited 1.
    const json = JSON.stringify({ baseUrl: 'https://h/efa?apikey=abc', file: '/jobs/x.json', n: 1 });
    expect(JSON.parse(redactSecretsInText(json))).toEqual({ baseUrl: 'https://h/efa?apikey=***', file: '/jobs/x.json', n: 1 });
    expect(JSON.parse(redactText(JSON.stringify({ u: 'http://a:b@h/?sig=1' })))).toEqual({ u: 'http://a:***@h/?sig=***' });
  });
});

describe('redactDeep', () => {
  it('walks objects and arrays, redacting strings and URL objects, keeping keys and other values', () => {
    const value = {
      baseUrl: 'https://user:pw@h/efa?sig=abcdef&lang=de',
      headers: { 'X-Api-Key': { env: 'EFA_KEY' } },
      list: ['plain', 'message echoing S3CRETVALUE', new URL('http://h/?token=q')],
      n: 3,
      ok: true,
      none: null,
      when: new Date(0),
    };
    expect(redactDeep(value, ['S3CRETVALUE'])).toEqual({
      baseUrl: 'https://user:***@h/efa?sig=***&lang=de',
      headers: { 'X-Api-Key': { env: 'EFA_KEY' } },
      list: ['plain', 'message echoing ***', 'http://h/?token=***'],
      n: 3,
      ok: true,
      none: null,
      when: new Date(0),
    });
  });

  it('turns errors into their redacted message and cuts cycles', () => {
    const cyclic: Record<string, unknown> = { e: new Error('failed for https://u:pw@h/') };
    cyclic['self'] = cyclic;
    expect(redactDeep(cyclic)).toEqual({ e: 'Error: failed for https://u:***@h/', self: '[circular]' });
  });
});

describe('log redaction', () => {
  it('replaces values under secret-named fields and URL credentials in others', () => {
    expect(redactFields({ apiKey: 'abc', baseUrl: 'https://h/efa?apikey=abc', stats: { url: 'http://u:p@h/' } })).toEqual({
      apiKey: '***',
      baseUrl: 'https://h/efa?apikey=***',
      stats: { url: 'http://u:***@h/' },
    });
  });
});

describe('redactReplyBody (issue 22.4: a job\'s own secrets in a reply, whatever their length)', () => {
  const secrets = collectSecrets({ urls: ['https://h/efa?sig=k3Y&name=x'], headers: { 'X-Api-Key': 'Bearer 7', Authorization: 'Zq7x' } });

  it('cuts them from JSON string values only, so the body still parses and numbers stay', () => {
    const body = JSON.stringify({
      pins: [{ id: 'de:08111:badk3Y', name: 'Halt k3Y', coord: { lat: 48.7123, lon: 9.1 }, n: 123, note: 'key Zq7x\\/', slash: 'a/k3Y' }],
      k3Y: 'a key',
    }).replace('a/k3Y', 'a\\/k3Y');
    const out = redactReplyBody(body, secrets);
    const parsed = JSON.parse(out) as { pins: { id: string; name: string; coord: { lat: number }; n: number; note: string; slash: string }[] };
    const pin = parsed.pins[0];
    expect(pin?.id).toBe('de:08111:bad***');
    expect(pin?.name).toBe('Halt ***');
    expect(pin?.note).toBe('key ***\\/');
    expect(pin?.slash).toBe('a/***');
    expect(pin?.coord.lat).toBe(48.7123);
    expect(pin?.n).toBe(123);
    expect(out).not.toContain('k3Y');
    expect(out).not.toContain('Zq7x');
  });

  it('hides a one-character credential only where it stands alone, and any text body as a whole', () => {
    const one = collectSecrets({ headers: { 'X-Api-Key': 'Bearer 7' } });
    const out = JSON.parse(redactReplyBody(JSON.stringify({ a: 'Gleis 7', b: 'de:08111:1700', c: 7 }), one)) as Record<string, unknown>;
    expect(out).toEqual({ a: 'Gleis ***', b: 'de:08111:1700', c: 7 });
    expect(redactReplyBody('<html>bad signature k3Y for 127.0.0.1</html>', secrets)).toBe('<html>bad signature *** for 127.0.0.1</html>');
  });
});
