/**
 * Issue 10 point 3: a record beyond the limits (nesting depth, id and name length) is a reject with
 * its reason in every dialect, never a thrown error or "Maximum call stack size exceeded".
 */
import { describe, expect, it } from 'vitest';
import { dialects } from '../../src/efa/dialects/index.js';
import { CUT_MARKER, cutAtDepth, MAX_FIELD_CHARS, MAX_RECORD_DEPTH, nestingDepth } from '../../src/efa/parse/limits.js';
import { json, setup } from './fakes.js';

/** `{ a: { a: ... 1 } }`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const deep = nested(3000);
const box = { bbox: [9, 48, 10, 49] as [number, number, number, number], filters: [{ type: 'STOP' as const }] };

describe('nesting depth', () => {
  it('is measured without recursion, at any depth', () => {
    expect(nestingDepth(1)).toBe(0);
    expect(nestingDepth({ a: [1, { b: 2 }] })).toBe(3);
    expect(nestingDepth(nested(200_000), Number.POSITIVE_INFINITY)).toBe(200_000);
    expect(nestingDepth(nested(200_000))).toBe(MAX_RECORD_DEPTH + 1);
  });

  it('a pin nested 3,000 deep is one reject in each dialect, its raw cut; its neighbours are kept', () => {
    const bodies = {
      json: { pins: [{ type: 'STOP', id: 'deep', name: 'D', coord: { lat: 48.7, lon: 9.1 }, extra: deep }, { type: 'STOP', id: 'ok', name: 'O', coord: { lat: 48.7, lon: 9.1 } }] },
      legacy: { pins: [{ type: 'STOP', id: 'deep', desc: 'D', coords: '9.1,48.7', extra: deep }, { type: 'STOP', id: 'ok', desc: 'O', coords: '9.1,48.7' }] },
      rapidjson: { version: '10.6', locations: [{ id: 'deep', name: 'D', type: 'stop', coord: [48.7, 9.1], properties: { extra: deep } }, { id: 'ok', name: 'O', type: 'stop', coord: [48.7, 9.1] }] },
    } as const;
    for (const name of ['json', 'legacy', 'rapidjson'] as const) {
      const { records, rejects } = dialects[name].parse.coordInfo(bodies[name]);
      expect(records.map((p) => p.id)).toEqual(['ok']);
      expect(rejects).toHaveLength(1);
      expect(rejects[0]?.reason).toMatch(new RegExp(`^(pins|locations)\\[0\\]: nested deeper than ${MAX_RECORD_DEPTH} levels$`));
      expect(nestingDepth(rejects[0]?.raw, Number.POSITIVE_INFINITY)).toBe(MAX_RECORD_DEPTH);
      expect(JSON.stringify(rejects[0]?.raw)).toContain(CUT_MARKER);
    }
  });

  it('deep notices, locations, lines and providers are rejects too', () => {
    expect(dialects.json.parse.addInfo({ infos: [{ id: 'n', type: 'lineInfo', x: deep }] }).rejects).toHaveLength(1);
    expect(dialects.json.parse.stopFinder({ locations: [{ id: 'l', name: 'L', type: 'stop', matchQuality: 1, x: deep }] }).rejects).toHaveLength(1);
    expect(dialects.json.parse.servingLines({ servingLines: [{ name: 'S1', number: '1', mot: 1, direction: 'x', x: deep }] }).rejects).toHaveLength(1);
    expect(dialects.json.parse.opArea({ providers: [{ id: 'p', name: 'P', vehicleType: 'BIKE', areas: [{ id: 'a', name: 'A', polygon: deep }] }] }).rejects).toHaveLength(1);
    expect(dialects.legacy.parse.addInfo({ additionalInformation: { travelInformations: { travelInformation: [{ infoID: 'n', type: 'x', infoLink: deep }] } } }).rejects).toHaveLength(1);
  });

  it('through the client the answer is received: records and the reject, no error', async () => {
    const { client } = setup([json({ pins: [{ type: 'STOP', id: 'deep', name: 'D', coord: { lat: 48.7, lon: 9.1 }, extra: deep }] })]);
    const result = await client.coordInfoBox(box);
    expect(result.records).toEqual([]);
    expect(result.rejects).toHaveLength(1);
  });

  it('cutAtDepth keeps shallow values whole', () => {
    expect(cutAtDepth({ a: [1, { b: 'x' }] })).toEqual({ a: [1, { b: 'x' }] });
    expect(cutAtDepth({ a: { b: { c: 1 } } }, 2)).toEqual({ a: { b: CUT_MARKER } });
  });
});

describe('field length', () => {
  const long = 'x'.repeat(MAX_FIELD_CHARS + 1);
  const fine = 'y'.repeat(MAX_FIELD_CHARS);

  it('an id or name over the limit is a reject saying which field; at the limit it is kept', () => {
    const { records, rejects } = dialects.json.parse.coordInfo({
      pins: [
        { type: 'STOP', id: long, name: 'A', coord: { lat: 48.7, lon: 9.1 } },
        { type: 'STOP', id: 'b', name: long, coord: { lat: 48.7, lon: 9.1 } },
        { type: 'STOP', id: fine, name: fine, coord: { lat: 48.7, lon: 9.1 } },
      ],
    });
    expect(records.map((p) => p.id)).toEqual([fine]);
    expect(rejects.map((r) => r.reason)).toEqual([
      `pins[0]: id is ${MAX_FIELD_CHARS + 1} characters long (at most ${MAX_FIELD_CHARS})`,
      `pins[1]: name is ${MAX_FIELD_CHARS + 1} characters long (at most ${MAX_FIELD_CHARS})`,
    ]);
  });

  it('assigned stops and areas are checked too', () => {
    const sf = dialects.json.parse.stopFinder({ locations: [{ id: 'l', name: 'L', type: 'stop', matchQuality: 1, assignedStops: [{ id: 's', name: long }] }] });
    expect(sf.rejects[0]?.reason).toBe(`locations[0]: assignedStops[0].name is ${MAX_FIELD_CHARS + 1} characters long (at most ${MAX_FIELD_CHARS})`);
    const op = dialects.json.parse.opArea({ providers: [{ id: 'p', name: 'P', vehicleType: 'BIKE', areas: [{ id: long, name: 'A' }] }] });
    expect(op.rejects[0]?.reason).toContain('areas[0].id is');
  });
});

describe('server messages', () => {
  it('a deeply nested message is kept, cut at the depth limit, in every dialect', () => {
    // The list of messages and the message itself add two levels above the attrs cut at the limit.
    const cut = (value: unknown) => nestingDepth(value, Number.POSITIVE_INFINITY) <= MAX_RECORD_DEPTH + 2;
    expect(cut(dialects.json.messages({ systemMessages: [{ text: 'x', detail: deep }] }))).toBe(true);
    expect(cut(dialects.json.messages({ systemMessages: [[deep]] }))).toBe(true);
    expect(cut(dialects.rapidjson.messages({ error: { message: 'x', detail: deep } }))).toBe(true);
    expect(cut(dialects.legacy.messages({ message: [{ name: 'code', value: '1' }, { name: 'detail', value: deep }] }))).toBe(true);
  });
});
