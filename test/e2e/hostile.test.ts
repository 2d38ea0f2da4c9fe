import { describe, expect, it } from 'vitest';
import { changesOf, pinCounts } from '../helpers/hostile-checks.js';
import { gridStops, pinsBody, truthfulAnswer, wirePin, type UpstreamStop } from '../helpers/hostile-upstream.js';
import { expectEveryUnitFailed, failureText, REGION, SMALL_MEMORY_MIB, STOP_COUNT, useHostileRows } from './hostile-rows.js';

/** Issue 10, the records an upstream can lie with (test/e2e/hostile-rows.ts says what every row checks). */
const h = useHostileRows();

describe('night two after a truthful night one (400 stops in one tile)', () => {
  it('latitude and longitude swapped: the tile fails naming the swap, nothing is marked gone (was: 400 of 400)', async () => {
    const r = await h.row('swapped');
    await h.truthfulNightOne(r);
    r.upstream.behave((_q, truthful) => pinsBody(truthful.map((s) => ({ ...wirePin(s), coord: { lat: s.lon, lon: s.lat } }))));
    const two = await r.night();
    expectEveryUnitFailed(two.summary);
    expect(failureText(two.summary)).toMatch(/latitude and longitude look swapped/);
    expect(two.logText).toMatch(/latitude and longitude look swapped/);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
  });

  it('coordinates as strings: every record rejected, the tile fails, nothing is marked gone', async () => {
    const r = await h.row('strings');
    await h.truthfulNightOne(r);
    r.upstream.behave((_q, truthful) => pinsBody(truthful.map((s) => ({ ...wirePin(s), coord: { lat: String(s.lat), lon: String(s.lon) } }))));
    const two = await r.night();
    expectEveryUnitFailed(two.summary);
    expect(failureText(two.summary)).toMatch(/all \d+ records were rejected/);
    expect(two.summary.rejects).toBeGreaterThanOrEqual(STOP_COUNT);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
  });

  it('coordinates as strings on a first night: nothing received is missing from the tables and efa.rejects', async () => {
    const r = await h.row('strings-first');
    r.upstream.behave((_q, truthful) => pinsBody(truthful.map((s) => ({ ...wirePin(s), coord: { lat: String(s.lat), lon: String(s.lon) } }))));
    const one = await r.night();
    expectEveryUnitFailed(one.summary);
    expect(failureText(one.summary)).toMatch(/all \d+ records were rejected/);
    expect(one.sent.length).toBeGreaterThanOrEqual(STOP_COUNT);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: 0, gone: 0 });
    await h.expectNothingLost(r, one, SMALL_MEMORY_MIB);
  });

  it('an empty pins list: the mass-deletion guard holds all 400 (exit 3, message names pins and --accept-deletions)', async () => {
    const r = await h.row('empty');
    await h.truthfulNightOne(r);
    r.upstream.behave(() => pinsBody([]));
    const two = await r.night();
    expect(two.summary.exitCode).toBe(3);
    expect(two.summary.heldDeletions).toEqual([expect.objectContaining({ relation: 'pins', wouldMark: STOP_COUNT, liveInScope: STOP_COUNT })]);
    expect(two.summary.error).toMatch(/pins would lose 400 of 400/);
    expect(two.logText).toMatch(/pins: .*400 of 400.*--accept-deletions/);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
    // The override never releases an answer that empties a relation (a lying night, issue 29 point 12):
    // neither the deprecated bare flag nor this very run's id.
    const bare = await r.night({ acceptDeletions: true });
    expect(bare.summary.exitCode).toBe(3);
    expect(bare.logText).toMatch(/pins: .*400 of 400.*--accept-deletions did not release them: an answer that empties a relation is never released/);
    const byId = await r.night({ acceptDeletions: { runId: two.summary.runId } });
    expect(byId.summary.exitCode).toBe(3);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
  });

  it('at most 30 records whatever max says (a silent cap): proved by a united box, the tiles cut below it, nothing lost or marked gone (was: 310 of 400)', async () => {
    const r = await h.row('silent-cap', { maxPerRequest: 100 });
    await h.truthfulNightOne(r);
    r.upstream.behave((q, truthful) => truthfulAnswer(q, truthful.slice(0, 30)));
    const two = await r.night();
    expect(two.logText).toMatch(/silently stops at 30 records, below max \(proved by a confirming request\)/);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    // The tiles that answered 30 before the cap was proved were asked again and split: every answer is whole.
    expect(two.summary.exitCode).toBe(0);
    expect(two.summary.capped).toEqual([]);
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
  });

  it("latitudes out of range (199) in every record: the answer is the server's grid (issue 56's rule, every dialect), exit 2 naming coordOutputFormat, nothing is marked gone", async () => {
    const r = await h.row('lat-199');
    await h.truthfulNightOne(r);
    r.upstream.behave((_q, truthful) => pinsBody(truthful.map((s) => ({ ...wirePin(s), coord: { lat: 199, lon: s.lon } }))));
    const two = await r.night();
    expect(two.summary.status).toBe('failed');
    expect(two.summary.exitCode).toBe(2);
    expect(JSON.stringify(two.summary)).toMatch(/coordOutputFormat/);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
  });
});

/** A deterministic shuffle (a small LCG), so night n always answers in the same, but another, order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761 + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const insideBox = (b: readonly number[], lon: number, lat: number): boolean =>
  lon >= (b[0] as number) && lon <= (b[2] as number) && lat >= (b[1] as number) && lat <= (b[3] as number);

describe('records that must cost themselves, not the run or the deletions', () => {
  it('a tile whose answer reached max with one rejected record counts as capped (split), not complete: no deletion', async () => {
    // max 400 for 400 stops: a full sweep's first tile receives exactly max records.
    const r = await h.row('max-with-reject', { maxPerRequest: 400 });
    await h.truthfulNightOne(r);
    r.upstream.behave((q, truthful) => {
      const wire = truthful.map(wirePin);
      // Only a full answer carries the broken record; the children of its split answer truthfully.
      if (wire.length >= q.max && wire[0]) wire[0] = { ...wire[0], coord: { lat: 'north', lon: 'east' } };
      return pinsBody(wire);
    });
    const two = await r.night({ full: true });
    expect(two.summary.exitCode).toBe(0);
    const first = await h.db.kysely
      .selectFrom('efa.run_tiles')
      .select(['status', 'hits'])
      .where('run_id', '=', two.summary.runId)
      .where('depth', '=', 0)
      .execute();
    // received = 399 parsed + 1 rejected = max: split, as a full answer must be.
    expect(first).toEqual([{ status: 'split', hits: 400 }]);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
    await h.expectNothingLost(r, two, SMALL_MEMORY_MIB);
  });

  it('duplicate ids with different coordinates in one answer, order shuffled each night: no row updated on nights 2 and 3', async () => {
    const stops = gridStops(STOP_COUNT, REGION);
    const twin = stops[123] as UpstreamStop;
    // The second copy lies a few metres away: inside the same tile whatever the plan.
    const copy = { ...wirePin(twin), name: `${twin.name} (other platform)`, coord: { lat: twin.lat + 0.00003, lon: twin.lon + 0.00003 } };
    let nightNo = 0;
    const r = await h.row('duplicates', { stops });
    r.upstream.behave((q, truthful) => {
      const wire = truthful.map(wirePin);
      if (insideBox(q.bbox, twin.lon, twin.lat)) wire.push(copy);
      return pinsBody(shuffled(wire, nightNo));
    });
    const runs: string[] = [];
    for (nightNo = 1; nightNo <= 3; nightNo++) {
      const n = await r.night();
      expect(n.summary.exitCode).toBe(0);
      // Both copies of the twin came in one answer this night.
      expect(r.upstream.requests.some((req) => req.sent.filter((p) => p['id'] === twin.id).length === 2)).toBe(true);
      runs.push(n.summary.runId);
      await h.expectNothingLost(r, n, SMALL_MEMORY_MIB);
    }
    expect(await changesOf(h.db, runs.slice(0, 1))).toEqual({ insert: STOP_COUNT });
    expect(await changesOf(h.db, runs.slice(1))).toEqual({});
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
  });

  it('one pin with a 4,000-character id: the others stored, that one in efa.rejects, no btree error (exit 3: a tile with a reject is incomplete)', async () => {
    const stops = [...gridStops(STOP_COUNT, REGION), { id: `de:08111:${'9'.repeat(3991)}`, name: 'Long', lon: 9.15, lat: 48.75 }];
    const r = await h.row('long-id', { stops });
    for (const nightNo of [1, 2]) {
      const n = await r.night();
      // A reject leaves its tile incomplete (it may lack that object): partial, not failed, never exit 0.
      expect(n.summary.exitCode, `night ${nightNo}`).toBe(3);
      expect(n.summary.rejects).toBe(1);
      expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
      await h.expectNothingLost(r, n, SMALL_MEMORY_MIB);
    }
    const reasons = await h.db.kysely.selectFrom('efa.rejects').select('reason').where('source', '=', r.name).execute();
    expect(reasons.map((x) => x.reason).join('\n')).toMatch(/1000/);
  });

  it('one name with a U+0000 beside the text backslash-u0000: only the U+0000 taken out, exit 0 (was: the text read as a newline)', async () => {
    const stops = gridStops(STOP_COUNT, REGION);
    const odd = stops[7] as UpstreamStop;
    const r = await h.row('nul-beside-literal', { stops });
    r.upstream.behave((_q, truthful) => pinsBody(truthful.map((s) => (s.id === odd.id ? { ...wirePin(s), name: 'Nul\u0000 and \\u0000n, \\u0000x text' } : wirePin(s)))));
    for (const nightNo of [1, 2]) {
      const n = await r.night();
      expect(n.summary.exitCode, `night ${nightNo}`).toBe(0);
      await h.expectNothingLost(r, n, SMALL_MEMORY_MIB);
    }
    const stored = await h.db.kysely.selectFrom('efa.pins').select('name').where('source', '=', r.name).where('id', '=', odd.id).execute();
    expect(stored).toEqual([{ name: 'Nul and \\u0000n, \\u0000x text' }]);
    expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
  });

  it('one pin nested 3,000 levels deep: no stack overflow, the pin is rejected, the others stored', async () => {
    const deepId = 'de:08111:deep';
    const deepRecord = `{"type":"STOP","id":"${deepId}","name":"Deep","coord":{"lat":48.75,"lon":9.15},"extra":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`;
    const r = await h.row('deep');
    r.upstream.behave((q, truthful) => {
      const wire = truthful.map(wirePin);
      if (!insideBox(q.bbox, 9.15, 48.75)) return pinsBody(wire);
      const body = `{"pins":[${[...wire.map((p) => JSON.stringify(p)), deepRecord].join(',')}]}`;
      return { body, sent: [...wire, { id: deepId }] };
    });
    for (const nightNo of [1, 2]) {
      const n = await r.night();
      // A reject leaves its tile incomplete (it may lack that object): partial, not failed, never exit 0.
      expect(n.summary.exitCode, `night ${nightNo}`).toBe(3);
      expect(n.summary.rejects).toBe(1);
      expect(await pinCounts(h.db, r.name)).toEqual({ live: STOP_COUNT, gone: 0 });
      await h.expectNothingLost(r, n, SMALL_MEMORY_MIB);
    }
  });
});
