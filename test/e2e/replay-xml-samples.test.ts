/**
 * Issue 46, end to end: every real XML answer in efa-samples/xml is served as the answer to the
 * requests a job sends (its bytes decoded as the transport does, from its declaration), and what
 * lands in the database is compared with what the answer's own text says. The oracle reads the text
 * with regular expressions, not with the parser under test. CoordInfo answers are also served with
 * their positions rewritten to micro-degrees (as VRR wrote them in 2016): the same rows, none out of
 * bounds. The compact mobile format is refused with a message naming the dialect to use.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/http/charset.js';
import type { Transport } from '../../src/http/types.js';
import type { JobInput } from '../../src/job/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';
import { SAMPLES_DIR } from '../efa/samples.js';

const XML_DIR = `${SAMPLES_DIR}/xml`;
const present = existsSync(XML_DIR);
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const files = present ? readdirSync(XML_DIR).filter((f) => f.endsWith('.xml')).sort() : [];

/** Answers every request with the sample's bytes, decoded as the fetch transport decodes them. */
function replay(bytes: Buffer, contentType = 'text/xml'): Transport {
  const body = decodeBody(bytes, contentType);
  return { send: async () => ({ status: 200, headers: { 'content-type': contentType }, body, durationMs: 1 }) };
}

const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e.toLowerCase()]!);

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  return m === undefined ? undefined : decodeEntities(m);
};
const genAttr = (block: string, name: string): string | undefined => {
  const m = new RegExp(`<name>${name}</name>\\s*<value>([^<]*)</value>`).exec(block)?.[1];
  return m === undefined || m.trim() === '' ? undefined : decodeEntities(m);
};

interface Expected { type: string; id: string; name: string; globalId: string | null; lon: number; lat: number }

/** What a CoordInfo answer's text says, by regex: scale from the echo's mapName (plain WGS84: micro-degrees). */
function coordOracle(text: string): Expected[] {
  const micro = /<itdCoord [^>]*mapName="WGS84"/.test(text);
  return [...text.matchAll(/(<coordInfoItem [^>]*>)([\s\S]*?)<\/coordInfoItem>/g)].map(([, tag = '', block = '']) => {
    const type = attr(tag, 'type')!;
    const global = genAttr(block, type === 'BUS_POINT' ? 'STOPPOINT_GLOBAL_ID' : 'STOP_GLOBAL_ID');
    const [x, y] = [/<x>([^<]*)<\/x>/.exec(block)?.[1], /<y>([^<]*)<\/y>/.exec(block)?.[1]].map((v) => Number(v) / (micro ? 1e6 : 1));
    // The pins table keeps a global id for stops; a stop point's keys its row (its id) instead.
    return { type, id: global ?? attr(tag, 'id')!, name: attr(tag, 'name')!, globalId: type === 'STOP' ? (global ?? null) : null, lon: x!, lat: y! };
  });
}

/** The same answer with every position in micro-degrees and the echo saying plain WGS84. */
function toMicroDegrees(text: string): string {
  return text
    .replace(/(<itdCoord [^>]*mapName=")[^"]*"/, '$1WGS84"')
    .replace(/(<itdCoord [^>]*\bx=")([^"]*)("[^>]*\by=")([^"]*)"/, (_, a: string, x: string, b: string, y: string) => `${a}${Math.round(Number(x) * 1e6)}${b}${Math.round(Number(y) * 1e6)}"`)
    .replace(/<(x|y)>(-?\d+\.\d+)<\/\1>/g, (_, axis: string, v: string) => `<${axis}>${Math.round(Number(v) * 1e6)}</${axis}>`);
}

function job(name: string, dialect: JobInput['dialect'], sweeps: JobInput['sweeps'], bbox: [number, number, number, number]) {
  return inlineJob({
    name,
    source: name,
    baseUrl: 'http://replay.invalid/efa',
    dialect,
    region: { bbox },
    rateLimit: { requestsPerSecond: 1000, concurrency: 2, retries: 2 },
    sweeps,
  });
}

const around = (rows: readonly Expected[]): [number, number, number, number] => [
  Math.min(...rows.map((r) => r.lon)) - 0.01, Math.min(...rows.map((r) => r.lat)) - 0.01,
  Math.max(...rows.map((r) => r.lon)) + 0.01, Math.max(...rows.map((r) => r.lat)) + 0.01,
];

describe.skipIf(!present)('real XML answers replayed through runJob', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => {
    await t?.dispose();
  });

  async function stored(source: string): Promise<Expected[]> {
    const rows = await sql<Expected>`
      SELECT type, id, name, global_id AS "globalId", ST_X(geom) AS lon, ST_Y(geom) AS lat
      FROM efa.pins WHERE source = ${source} AND deleted_at IS NULL ORDER BY id, type`.execute(t.db.kysely);
    return rows.rows;
  }
  const sorted = (rows: Expected[]): Expected[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.type.localeCompare(b.type)));
  const near = (rows: Expected[]) => rows.map((r) => ({ ...r, lon: expect.closeTo(r.lon, 5), lat: expect.closeTo(r.lat, 5) }));

  for (const file of files.filter((f) => f.startsWith('coord-'))) {
    const bytes = readFileSync(`${XML_DIR}/${file}`);
    const text = decodeBody(bytes, undefined);
    const expected = sorted(coordOracle(text));
    const type = (expected[0]?.type ?? 'STOP') as 'STOP' | 'BUS_POINT';

    it(`CoordInfo ${file}: every item stored with its id, name, type, global id and position, in xml and under auto`, async () => {
      expect(expected.length).toBeGreaterThan(0);
      for (const dialect of ['xml', 'auto'] as const) {
        const source = `xml-${dialect}-${file}`;
        const run = await runJob({ loaded: job(source, dialect, { coord: { types: [type], maxPerRequest: 5000 } }, around(expected)), db: t.db, log: silent, today, full: true, transport: replay(bytes) });
        expect(run).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: 'xml' });
        expect(run.stats['_rejects']).toBe(0);
        expect(await stored(source)).toEqual(near(expected));
      }
    });

    it(`CoordInfo ${file} with micro-degree positions: the same rows, none out of bounds`, async () => {
      const micro = Buffer.from(toMicroDegrees(text), 'utf8');
      const source = `xml-micro-${file}`;
      const run = await runJob({ loaded: job(source, 'xml', { coord: { types: [type], maxPerRequest: 5000 } }, around(expected)), db: t.db, log: silent, today, full: true, transport: replay(micro, 'text/xml; charset=UTF-8') });
      expect(run).toMatchObject({ status: 'succeeded', exitCode: 0 });
      const rows = await stored(source);
      expect(rows.every((r) => Math.abs(r.lon) <= 180 && Math.abs(r.lat) <= 90)).toBe(true);
      expect(rows).toEqual(near(expected));
    });
  }

  for (const file of files.filter((f) => f.startsWith('stopfinder-') && !f.includes('compact'))) {
    it(`StopFinder ${file}: the best candidate stored under the name the answer gives, exit 0`, async () => {
      const bytes = readFileSync(`${XML_DIR}/${file}`);
      const text = decodeBody(bytes, undefined);
      // A candidate's name is its text; the map items inside it are elements, not text.
      const tags = [...text.matchAll(/<odvNameElem [^>]*[^/]>([\s\S]*?)<\/odvNameElem>/g)];
      expect(tags.length).toBeGreaterThan(0);
      const source = `xml-sf-${file}`;
      const run = await runJob({ loaded: job(source, 'xml', { stopFinder: { names: ['replayed'] } }, [-180, -90, 180, 90]), db: t.db, log: silent, today, transport: replay(bytes) });
      expect(run).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: 'xml' });
      const names = tags.map((m) => decodeEntities((m[1] ?? '').replace(/<itdMapItemList[\s\S]*?(<\/itdMapItemList>|<itdMapItemList\/>)/, '').replace(/<[^>]*>/g, '')));
      const rows = await stored(source);
      expect(rows).toHaveLength(1);
      expect(names, JSON.stringify(rows)).toContain(rows[0]!.name);
    });
  }

  it('the compact mobile format (root efa) is refused with exit 2, naming the dialect to use', async () => {
    const bytes = readFileSync(`${XML_DIR}/stopfinder-kpublictransport-by-compact.xml`);
    const run = await runJob({ loaded: job('xml-compact', 'xml', { stopFinder: { names: ['replayed'] } }, [-180, -90, 180, 90]), db: t.db, log: silent, today, transport: replay(bytes) });
    expect(run).toMatchObject({ status: 'failed', exitCode: 2 });
    expect(run.error).toContain('compact mobile XML format');
    expect(run.error).toContain('"dialect": "xml"');
  });
});
