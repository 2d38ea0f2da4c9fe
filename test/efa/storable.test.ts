import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient, type EfaClient } from '../../src/efa/client.js';
import { dialectFor } from '../../src/efa/dialects/index.js';
import type { Pin } from '../../src/efa/records.js';
import { holdsUnstorable, mayHoldUnstorable, storable, storableText } from '../../src/efa/text/storable.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import type { HttpReply, Transport } from '../../src/http/types.js';
import { toLineRow, toNoticeRow, toPinRow, toProviderRows } from '../../src/relations/index.js';
import { isSharingVehicle } from '../../src/relations/pins.js';
import { startSimulator, type Simulator, type SimDialect } from '../../src/sim/index.js';

/**
 * Issue 56 point 1: a lone UTF-16 surrogate in any text of any record, in every dialect, is stored
 * as U+FFFD (columns and attrs alike) and costs no record: the one function is storable().
 */
const LONE = '\ud800';
/** JSON.stringify writes a lone surrogate as this escape, which PostgreSQL's json refuses. */
const ESCAPED_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/;

describe('storable', () => {
  it('returns a storable value as it is, and a copy with U+0000 dropped and lone surrogates as U+FFFD', () => {
    const clean = { a: ['x', { b: 'y 😀' }] };
    expect(storable(clean)).toBe(clean);
    expect(storable({ [`k${LONE}\u0000`]: [`a${LONE}b`, '\udc00x', 'pair 😀', 'nul\u0000'] })).toEqual({ 'k\ufffd': ['a\ufffdb', '\ufffdx', 'pair 😀', 'nul'] });
    // A string's own text backslash-u0000 or backslash-ud800 is text, not a character: kept.
    expect(storable({ name: 'a\u0000b \\u0000n \\ud800' })).toEqual({ name: 'ab \\u0000n \\ud800' });
    expect(storableText('\ud83d')).toBe('\ufffd');
  });

  it('lets an answer through by its text when no escape in it can give an unstorable string', () => {
    expect(mayHoldUnstorable('{"name":"Stuttgart Hbf 😀 \\u00fc"}')).toBe(false);
    expect(mayHoldUnstorable('<a name="x&#xFFFD;">&#228;</a>')).toBe(false);
    expect(mayHoldUnstorable(JSON.stringify({ name: `a${LONE}` }))).toBe(true);
    expect(mayHoldUnstorable(JSON.stringify({ name: 'nul\u0000' }))).toBe(true);
    expect(mayHoldUnstorable('{"name":"\\uDC00"}')).toBe(true);
  });

  it('keeps an own __proto__ field own, and leaves class instances alone', () => {
    const parsed = JSON.parse(`{"__proto__": {"x": "a\\ud800"}, "y": "b\\ud800"}`) as Record<string, unknown>;
    const out = storable(parsed);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":"a\ufffd"},"y":"b\ufffd"}');
    expect(holdsUnstorable(out)).toBe(false);
  });
});

/** A text worth spoiling: one a reader takes as words, not a number, a coordinate or a reference system's name. */
const isWords = (text: string): boolean => /[a-zäöüß]/i.test(text) && !/^\s*(WGS84|EPSG|GEO_DECIMAL|NAV|MRCV)/i.test(text) && !/^[a-z]+$/.test(text);

/** Every worded string value of a JSON body with a lone surrogate appended, and one key of each object spoiled. */
function spoilJson(value: unknown): unknown {
  if (typeof value === 'string') return isWords(value) ? value + LONE : value;
  if (Array.isArray(value)) return value.map(spoilJson);
  if (value === null || typeof value !== 'object') return value;
  const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, spoilJson(v)]));
  return { ...out, [`extra${LONE}`]: `text${LONE}` };
}

/** XML cannot carry a lone surrogate; a character reference to one (which saxes refuses) may come. */
function spoilXml(text: string): string {
  return text
    .replace(/ (name|desc|text|value|title)="([^"]*)"/g, (_m, attr: string, value: string) => ` ${attr}="${value}&#xD800;"`)
    .replace(/>([^<]+)</g, (m, inner: string) => (isWords(inner) ? `>${inner}&#55296;<` : m));
}

function spoilingTransport(): Transport {
  const inner = createFetchTransport();
  return {
    async send(request): Promise<HttpReply> {
      const reply = await inner.send(request);
      const body = reply.body.trimStart().startsWith('<') ? spoilXml(reply.body) : JSON.stringify(spoilJson(JSON.parse(reply.body)));
      return { ...reply, body };
    },
  };
}

const BOX: [number, number, number, number] = [9.165, 48.768, 9.195, 48.786];

describe.each<SimDialect>(['json', 'legacy', 'rapidjson', 'xml'])('a lone surrogate in every text of every record, %s dialect', (dialect) => {
  let sim: Simulator;
  let plain: EfaClient;
  let spoiled: EfaClient;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 56, size: 2000, dialect, today: '2026-11-22' });
    const client = (transport: Transport) =>
      createEfaClient({ baseUrl: sim.url, transport, dialect: dialectFor(dialect), scheduler: createRequestScheduler({ requestsPerSecond: 500, concurrency: 4, retries: 0, timeoutMs: 10_000 }) });
    plain = client(createFetchTransport());
    spoiled = client(spoilingTransport());
  });
  afterAll(async () => {
    await sim?.stop();
  });

  /** Every row a sweep would build from the records: none holds an unstorable text, some hold U+FFFD. */
  const expectStorable = (rows: readonly unknown[]): void => {
    expect(rows.length).toBeGreaterThan(0);
    const text = JSON.stringify(rows);
    expect(holdsUnstorable(rows)).toBe(false);
    expect(text).not.toMatch(ESCAPED_SURROGATE);
    expect(text).toContain('\ufffd');
  };

  it('CoordInfo: every pin kept, its rows storable', async () => {
    const ask = (c: EfaClient) => c.coordInfoBox({ bbox: BOX, filters: [{ type: 'STOP' }, { type: 'POI_POINT' }] });
    const [before, after] = [await ask(plain), await ask(spoiled)];
    expect(before.records.length).toBeGreaterThan(20);
    expect(after.records.length).toBe(before.records.length);
    expectStorable(after.records.filter((p: Pin) => !isSharingVehicle(p)).map(toPinRow));
  });

  it('StopFinder, ServingLines, AddInfo and OpArea: every record kept, storable', async () => {
    const stop = (await plain.coordInfoBox({ bbox: BOX, filters: [{ type: 'STOP' }] })).records.find((p) => p.id !== undefined);
    const pairs = [
      [(c: EfaClient) => c.stopFinder({ type: 'any', name: stop?.name ?? 'Hbf' }), (r: unknown[]) => r],
      [(c: EfaClient) => c.servingLinesAtStop({ stopId: stop?.id ?? '' }), (r: unknown[]) => r.map((l) => toLineRow(l as never))],
      [(c: EfaClient) => c.addInfo({ filterPublicationStatus: 'current' }), (r: unknown[]) => r.map((n) => toNoticeRow(n as never))],
      [(c: EfaClient) => c.opArea({ opareaSM: 'ALL' }), (r: unknown[]) => r.map((p) => toProviderRows(p as never))],
    ] as const;
    for (const [ask, rows] of pairs) {
      const [before, after] = [await ask(plain), await ask(spoiled)];
      expect(after.records.length).toBe(before.records.length);
      expect(after.rejects).toEqual([]);
      expectStorable(rows(after.records as unknown[]));
      expect(JSON.stringify(after.messages)).not.toMatch(ESCAPED_SURROGATE);
    }
  });
});
