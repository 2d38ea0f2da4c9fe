import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { goneButStillThere, pinCounts } from '../helpers/hostile-checks.js';
import { pinsBody, truthfulAnswer, wirePin, type CoordBehaviour } from '../helpers/hostile-upstream.js';
import { BODY_MEMORY_MIB, expectEveryUnitFailed, failureText, SMALL_MEMORY_MIB, STOP_COUNT, useHostileRows } from './hostile-rows.js';

/**
 * Issue 10, the bodies and servers a run must outlast: too large, endless, compressed to explode, or
 * never letting a run end (test/e2e/hostile-rows.ts says what every row checks).
 */
const h = useHostileRows();

const MiB = 1024 * 1024;

/** Zeros in 1 MiB chunks, made only as fast as the client reads them. */
function* zeros(totalBytes = Number.POSITIVE_INFINITY): Generator<Buffer> {
  const chunk = Buffer.alloc(MiB, 0x20);
  for (let sent = 0; sent < totalBytes; sent += chunk.length) yield chunk;
}

describe('bodies no client should hold: the tile fails naming the limit, memory stays bounded', () => {
  const bodies: [string, CoordBehaviour][] = [
    ['a 200 MB body', () => ({ headers: { 'Content-Length': String(200 * MiB) }, body: () => Readable.from(zeros(200 * MiB)) })],
    ['an endless chunked body', () => ({ body: () => Readable.from(zeros()) })],
    ['a gzip bomb (1 GiB of spaces in about 1 MiB)', () => ({ headers: { 'Content-Encoding': 'gzip' }, body: () => Readable.from(zeros(1024 * MiB)).pipe(createGzip({ level: 1 })) })],
  ];
  for (const [what, behaviour] of bodies) {
    it(`${what}: failed with a size message, not "no reply"; RSS grows < ${BODY_MEMORY_MIB} MiB`, async () => {
      const r = await h.row(`body-${what.split(' ')[1]}`);
      await h.truthfulNightOne(r);
      r.upstream.behave(behaviour);
      const two = await r.night();
      expectEveryUnitFailed(two.summary);
      expect(failureText(two.summary)).toMatch(/reply larger than 67108864 bytes/);
      expect(failureText(two.summary)).not.toMatch(/no reply/i);
      expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
      await h.expectNothingLost(r, two, BODY_MEMORY_MIB);
      console.info(`${what}: exit ${two.summary.exitCode}, peak RSS growth ${two.peakGrowthMiB} MiB, ${two.seconds} s, ${two.requests} requests`);
    }, 60_000);
  }
});

describe('a server that will not let a run end, or asks it to wait for days', () => {
  /** Pads every answer to exactly `max` records with phantoms inside the box: every box claims to be full. */
  const alwaysFull: CoordBehaviour = (q, truthful) => {
    const wire = truthful.map(wirePin);
    const [w, s, e, n] = q.bbox;
    for (let i = wire.length; i < q.max; i++) {
      const lon = w + ((e - w) * ((i * 37) % 101)) / 101;
      const lat = s + ((n - s) * ((i * 61) % 103)) / 103;
      wire.push({ type: 'STOP', id: `phantom:${lon.toFixed(6)}:${lat.toFixed(6)}`, name: 'Phantom', coord: { lat: Number(lat.toFixed(6)), lon: Number(lon.toFixed(6)) } });
    }
    return pinsBody(wire);
  };

  /**
   * Full down to boxes of about 10 m, truthful below: the one-metre probes of tiling/spatial-check.ts
   * find nothing to object to, so only the request budget (or the minimum tile) ends the run.
   */
  const fullAboveTenMetres: CoordBehaviour = (q, truthful) => (q.bbox[2] - q.bbox[0] < 0.0001 ? truthfulAnswer(q, truthful) : alwaysFull(q, truthful));

  it('every box full, bounded by the request budget: the run ends partial (exit 3) within 60 s, naming the budget', async () => {
    const budget = 150;
    const r = await h.row('full-budget', { maxPerRequest: 100, job: { limits: { requestBudget: budget } } });
    await h.truthfulNightOne(r);
    r.upstream.behave(fullAboveTenMetres);
    const two = await r.night();
    expect(two.summary.exitCode).toBe(3);
    expect(two.summary.error).toMatch(/request budget of 150 requests exhausted/);
    expect(two.requests).toBeLessThanOrEqual(budget);
    expect(two.seconds).toBeLessThan(60);
    expect(await goneButStillThere(h.db, r.name, r.upstream.stops.map((x) => x.id))).toEqual([]);
    expect(two.peakGrowthMiB).toBeLessThan(SMALL_MEMORY_MIB);
    console.info(`every box full, budget ${budget}: exit ${two.summary.exitCode}, ${two.requests} requests, ${two.seconds} s`);
  }, 90_000);

  it('every box full, bounded by the minimum tile size: the run terminates within 60 s, partial, the smallest tiles recorded capped', async () => {
    const r = await h.row('full-min-tile', { maxPerRequest: 100, job: { sweeps: { coord: { types: ['STOP'], maxPerRequest: 100, minTileSizeDeg: 0.025 } } } });
    await h.truthfulNightOne(r);
    r.upstream.behave(alwaysFull);
    const two = await r.night();
    expect(two.summary.capped.length).toBeGreaterThan(0);
    expect(two.logText).toMatch(/too small to split/);
    // Capped tiles may lack objects: the run is partial, never a quiet success.
    expect(two.summary.exitCode).toBe(3);
    expect(two.summary.error).toMatch(/capped or incomplete/);
    expect(two.seconds).toBeLessThan(60);
    expect(await goneButStillThere(h.db, r.name, r.upstream.stops.map((x) => x.id))).toEqual([]);
    console.info(`every box full, min tile 0.025°: exit ${two.summary.exitCode}, ${two.requests} requests, ${two.seconds} s`);
  }, 90_000);

  it('Retry-After: 999999 fails the tile with a warning within 10 s instead of parking the run', async () => {
    const r = await h.row('retry-after');
    await h.truthfulNightOne(r);
    r.upstream.behave(() => ({ status: 429, headers: { 'Retry-After': '999999' }, body: '{"message":"slow down"}' }));
    const two = await r.night();
    expectEveryUnitFailed(two.summary);
    expect(failureText(two.summary)).toMatch(/retry after 999999 s, more than the ceiling of 300 s; not waiting/);
    expect(two.logText).toMatch(/retry after 999999 s/);
    expect(two.seconds).toBeLessThan(10);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    console.info(`Retry-After 999999: exit ${two.summary.exitCode}, ${two.seconds} s, ${two.requests} requests`);
  }, 30_000);
});
