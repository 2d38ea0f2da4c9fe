/**
 * Issue 11, end to end: every real CoordInfo, StopFinder and AddInfo sample is replayed through
 * `runJob` (a transport that answers every request with the sample body) in the sample's dialect
 * and under `auto`, and what lands in the database is compared byte for byte with the JSON. Also
 * the wrong-dialect runs of the issue: exit 2 naming the dialect, instead of exit 0 with nothing
 * stored or exit 1 after retries.
 *
 * Pins are selected by id, name and type only (the storage layer's keys are being redesigned).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/http/types.js';
import type { JobInput } from '../../src/job/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';
import { allSamples, type RawRecord, type Sample } from '../efa/samples.js';

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';

/** Answers every request with `body`, as a server would (status 200, JSON). */
function replay(body: unknown): Transport & { requests: number } {
  const text = JSON.stringify(body);
  const transport = {
    requests: 0,
    async send() {
      transport.requests += 1;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: text, durationMs: 1 };
    },
  };
  return transport;
}

/** What each CoordInfo sample asked for (SOURCES.md); every pin of it is of that type. */
const REQUESTED: Readonly<Record<string, 'STOP' | 'BUS_POINT' | 'POI_POINT'>> = {
  'rapidjson/coord-tfnsw-bus-point.json': 'BUS_POINT',
  'rapidjson/coord-tfnsw-poi-point.json': 'POI_POINT',
  'rapidjson/coord-maxim75-tfnsw_trip_planner-tfnsw-location0-FRAGMENT.json': 'STOP',
  'legacy-json/coord-jlnstrk-transit-mvv.json': 'STOP',
};

/** lon/lat of a raw record, read off the JSON: rapidJSON [lat, lon], legacy "x,y" (WGS84 in the coord sample). */
function lonLatOf(record: RawRecord): [number, number] {
  const coord = record.raw['coord'];
  if (Array.isArray(coord)) return [Number(coord[1]), Number(coord[0])];
  const [x, y] = String(record.raw['coords']).split(',').map(Number);
  return [x ?? Number.NaN, y ?? Number.NaN];
}

/** A box around every record of the sample, so every pin is inside the job's region. */
function regionAround(records: readonly RawRecord[]): [number, number, number, number] {
  const points = records.map(lonLatOf);
  const lons = points.map(([lon]) => lon);
  const lats = points.map(([, lat]) => lat);
  return [Math.min(...lons) - 0.01, Math.min(...lats) - 0.01, Math.max(...lons) + 0.01, Math.max(...lats) + 0.01];
}

function job(name: string, dialect: JobInput['dialect'], sweeps: JobInput['sweeps'], bbox: [number, number, number, number] = [151, -34, 151.3, -33.7]) {
  return inlineJob({
    name,
    // A sample's own-dialect run and its auto run are one deployment: the auto run must find the rows.
    source: name.replace(/-auto/g, '').replace(/-(json|legacy|rapidjson)$/, ''),
    baseUrl: 'http://replay.invalid/efa',
    dialect,
    region: { bbox },
    rateLimit: { requestsPerSecond: 1000, concurrency: 2, retries: 2 },
    sweeps,
  });
}

type Row = { id: string | null; name: string; type: string };

const { samples } = allSamples();
const coordSamples = samples.filter((s) => s.operation === 'coordInfo');
const stopFinderSamples = samples.filter((s) => s.operation === 'stopFinder');
const addInfoSamples = samples.filter((s) => s.operation === 'addInfo');

describe('real samples replayed through runJob: ids, names and types stored verbatim', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => {
    await t?.dispose();
  });

  async function pinsWithIds(ids: readonly string[]): Promise<Row[]> {
    const result = await sql<Row>`SELECT id, name, type FROM efa.pins WHERE id = ANY(${[...ids]}::text[]) ORDER BY id, type`.execute(t.db.kysely);
    return result.rows;
  }

  /** Rows the run wrote to a relation (a second, identical reading of the same answer writes none). */
  async function changesOf(summary: RunSummary, relation: string): Promise<number> {
    const result = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM efa.changes WHERE run_id = ${summary.runId}::bigint AND relation = ${relation}`.execute(t.db.kysely);
    return result.rows[0]?.n ?? 0;
  }

  const sortRows = (rows: Row[]): Row[] => [...rows].sort((a, b) => (a.id ?? '').localeCompare(b.id ?? '') || a.type.localeCompare(b.type));

  for (const sample of coordSamples) {
    it(`CoordInfo ${sample.file}: in ${sample.dialect}, then under auto`, async () => {
      const type = REQUESTED[sample.file] ?? 'STOP';
      const expected = sortRows(sample.records.map((r) => ({ id: r.id ?? null, name: r.name ?? '', type })));
      const ids = expected.flatMap((r) => (r.id === null ? [] : [r.id]));
      expect(ids).toHaveLength(sample.records.length);
      const sweeps = { coord: { types: [type], maxPerRequest: 5000 } };
      const bbox = regionAround(sample.records);

      const own = await runJob({ loaded: job(`replay-${sample.dialect}`, sample.dialect, sweeps, bbox), db: t.db, log: silent, today, full: true, transport: replay(sample.body) });
      expect(own).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: sample.dialect });
      expect(own.stats['_rejects']).toBe(0);
      expect(sortRows(await pinsWithIds(ids))).toEqual(expected);

      const auto = await runJob({ loaded: job(`replay-auto-${sample.dialect}`, 'auto', sweeps, bbox), db: t.db, log: silent, today, full: true, transport: replay(sample.body) });
      expect(auto).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: sample.dialect });
      expect(auto.coord?.pins).toBe(sample.records.length);
      expect(await changesOf(auto, 'pins')).toBe(0);
      expect(sortRows(await pinsWithIds(ids))).toEqual(expected);
    });
  }

  for (const sample of stopFinderSamples) {
    it(`StopFinder ${sample.file}: the best match in ${sample.dialect}, then under auto`, async () => {
      const sweeps = { stopFinder: { names: ['replayed'] } };
      if (sample.gridCoordinates) {
        // As recorded, the answer is in the server's grid: the run stops, saying the server ignored coordOutputFormat.
        const grid = await runJob({ loaded: job(`replay-grid-${sample.dialect}`, sample.dialect, sweeps), db: t.db, log: silent, today, transport: replay(sample.body) });
        expect(grid).toMatchObject({ status: 'failed', exitCode: 2 });
        expect(grid.error).toContain('ignored coordOutputFormat=WGS84[dd.ddddd]');
      }
      const body = sample.wgs84Body;
      const bestIndex = bestOf(sample);
      const best = sample.records[bestIndex] as RawRecord;
      const expected = [{ id: best.id ?? null, name: best.name ?? '', type: best.kind === 'stop' ? 'STOP' : (best.kind ?? '').toUpperCase() }];

      const own = await runJob({ loaded: job(`replay-sf-${sample.dialect}`, sample.dialect, sweeps), db: t.db, log: silent, today, transport: replay(body) });
      expect(own).toMatchObject({ status: 'succeeded', exitCode: 0 });
      expect(await pinsWithIds([best.id ?? ''])).toEqual(expected);

      const auto = await runJob({ loaded: job(`replay-sf-auto-${sample.dialect}`, 'auto', sweeps), db: t.db, log: silent, today, transport: replay(body) });
      expect(auto).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: sample.dialect });
      expect(await changesOf(auto, 'pins')).toBe(0);
      expect(await pinsWithIds([best.id ?? ''])).toEqual(expected);
    });
  }

  for (const sample of addInfoSamples) {
    it(`AddInfo ${sample.file}: every notice id and type, in ${sample.dialect}, then under auto`, async () => {
      const sweeps = { addInfo: { publicationStatus: 'history' as const } };
      const expected = [...sample.records.map((r) => ({ id: r.id ?? '', type: r.kind ?? '' }))].sort((a, b) => a.id.localeCompare(b.id));
      const ids = expected.map((r) => r.id);
      const read = async () =>
        (await sql<{ id: string; type: string }>`SELECT notice_id AS id, type FROM efa.notices WHERE notice_id = ANY(${ids}::text[]) ORDER BY notice_id`.execute(t.db.kysely)).rows;
      for (const dialect of [sample.dialect, 'auto'] as const) {
        const summary = await runJob({ loaded: job(`replay-ai-${dialect}`, dialect, sweeps), db: t.db, log: silent, today, transport: replay(sample.body) });
        expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: sample.dialect });
        expect((await read()).sort((a, b) => a.id.localeCompare(b.id))).toEqual(expected);
      }
    });
  }

  it('a TfNSW-shaped GIS answer (ids ending in a space, kind `gis`) is stored verbatim as GIS_POINT', async () => {
    // The shape of the real TfNSW coord answer of issue 11 (983 of 2,447 ids end in a space), not in the samples folder.
    const locations = [
      { id: 'coord:4889102:3757273:GDAV: ', name: 'Hyde Park North', type: 'gis', coord: [-33.8731, 151.2111] },
      { id: 'coord:4889110:3757280:GDAV:', name: 'Hyde Park South ', type: 'gis', coord: [-33.8765, 151.2107] },
    ];
    for (const dialect of ['rapidjson', 'auto'] as const) {
      const summary = await runJob({
        loaded: job(`replay-gis-${dialect}`, dialect, { coord: { types: ['GIS_POINT'], maxPerRequest: 500 } }, [151.2, -33.9, 151.22, -33.86]),
        db: t.db,
        log: silent,
        today,
        full: true,
        transport: replay({ version: '10.6.21.17', locations }),
      });
      expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0 });
      expect(await pinsWithIds(locations.map((l) => l.id))).toEqual([
        { id: 'coord:4889102:3757273:GDAV: ', name: 'Hyde Park North', type: 'GIS_POINT' },
        { id: 'coord:4889110:3757280:GDAV:', name: 'Hyde Park South ', type: 'GIS_POINT' },
      ]);
    }
  });

  it('a notice answered current and again, older, in historic is stored in its current version', async () => {
    const sample = addInfoSamples[0] as Sample;
    const body = sample.body as { infos: { current: Record<string, unknown>[]; historic: Record<string, unknown>[] } };
    const first = body.infos.current[0] as Record<string, unknown>;
    const older = { ...first, version: Number(first['version']) - 1, subtitle: 'an older wording' };
    const summary = await runJob({
      loaded: job('replay-ai-dup', 'rapidjson', { addInfo: { publicationStatus: 'history' } }),
      db: t.db,
      log: silent,
      today,
      transport: replay({ ...body, infos: { ...body.infos, historic: [...body.infos.historic, older] } }),
    });
    expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0 });
    const rows = await sql<{ title: string }>`SELECT title FROM efa.notices WHERE source = 'replay-ai-dup' AND notice_id = ${String(first['id'])}`.execute(t.db.kysely);
    expect(rows.rows.map((r) => r.title)).not.toContain('an older wording');
    expect(rows.rows).toHaveLength(1);
  });

  it('a rapidJSON answer read with the default json dialect: exit 2 naming rapidjson, nothing stored', async () => {
    const sample = coordSamples.find((s) => s.file === 'rapidjson/coord-tfnsw-poi-point.json') as Sample;
    const transport = replay({ ...(sample.body as object), locations: [{ id: 'mismatch-probe', name: 'P', type: 'poi', coord: [-33.88, 151.2] }] });
    // The run's probe of its upstream notices it before anything is planned: a configuration error, exit 2.
    const run = runJob({ loaded: job('replay-wrong-json', undefined, { coord: { types: ['POI_POINT'], maxPerRequest: 500 } }), db: t.db, log: silent, today, full: true, transport });
    await expect(run).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--dialect rapidjson') });
    expect(await pinsWithIds(['mismatch-probe'])).toEqual([]);
    const stopFinder = runJob({
      loaded: job('replay-wrong-json-sf', undefined, { stopFinder: { names: ['Epping'] } }),
      db: t.db,
      log: silent,
      today,
      transport: replay(stopFinderSamples.find((s) => s.file === 'rapidjson/stopfinder-tfnsw-epping.json')?.body),
    });
    await expect(stopFinder).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--dialect rapidjson') });
  });

  it('a legacy answer read as rapidjson: exit 2 naming legacy, without retries', async () => {
    const sample = coordSamples.find((s) => s.dialect === 'legacy') as Sample;
    const transport = replay(sample.body);
    const run = runJob({
      loaded: job('replay-wrong-rapid', 'rapidjson', { coord: { types: ['STOP'], maxPerRequest: 500 } }, regionAround(sample.records)),
      db: t.db,
      log: silent,
      today,
      full: true,
      transport,
    });
    await expect(run).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--dialect legacy') });
    // One request: a dialect mismatch is not retried.
    expect(transport.requests).toBe(1);
  });
});

/** The record the stop-finder sweep stores: `isBest` where marked, else the highest quality (first on ties). */
function bestOf(sample: Sample): number {
  const flagged = sample.records.findIndex((r) => r.raw['isBest'] === true || r.raw['best'] === '1');
  if (flagged >= 0) return flagged;
  let best = 0;
  sample.records.forEach((r, i) => {
    const quality = Number(r.raw['matchQuality'] ?? r.raw['quality']);
    if (quality > Number(sample.records[best]?.raw['matchQuality'] ?? sample.records[best]?.raw['quality'])) best = i;
  });
  return best;
}
