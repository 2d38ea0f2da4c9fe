/**
 * Occupancy and vehicle state arrive where the client's parsers read them, in every dialect:
 * parking `attrs.realtime.free` / `.occupied` (what efa.current_parking reads), vehicle
 * `attrs.chargePercent`, `attrs.fuelPercent`, `attrs.available` (legacy: name/value strings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient } from '../../src/efa/client.js';
import { dialects } from '../../src/efa/dialects/index.js';
import type { Pin } from '../../src/efa/records.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import { generateWorld, parkingAt, SIM_DIALECTS, startSimulator, vehiclesAt, type Simulator } from '../../src/sim/index.js';
import { TODAY } from './helpers.js';

const CLOCK = '2026-11-24T10:00:00+01:00';
const world = generateWorld({ seed: 3, size: 1500, today: TODAY });
const BOX: [number, number, number, number] = [9.15, 48.76, 9.21, 48.795];

/** A scalar attribute as json and rapidJSON send it, or from legacy's name/value list (as text). */
function attr(p: Pin, name: string): unknown {
  if (name in p.attrs) return p.attrs[name];
  const list = p.attrs['attrs'];
  return Array.isArray(list) ? (list as { name: string; value: unknown }[]).find((a) => a.name === name)?.value : undefined;
}

// No XML answer with parking realtime or sharing vehicles is known: the xml renderer writes none (docs/dialects.md).
describe.each(SIM_DIALECTS.filter((d) => d !== 'xml'))('the %s dialect carries the moving world to the client', (name) => {
  let sim: Simulator;
  beforeAll(async () => { sim = await startSimulator({ port: 0, world, clock: CLOCK, dialect: name }); });
  afterAll(async () => sim?.stop());
  const client = () => createEfaClient({
    baseUrl: sim.url, transport: createFetchTransport(),
    scheduler: createRequestScheduler({ requestsPerSecond: 100, concurrency: 2 }), dialect: dialects[name],
  });

  it('parking occupancy in attrs.realtime', async () => {
    const r = await client().coordInfoBox({
      bbox: BOX, filters: [{ type: 'STOP' }], parkingBBox: BOX, parkingObjectType: 'all', parkObjInfo: true, parkObjInfoRealtime: true,
    });
    const truth = new Map(parkingAt(world, new Date(CLOCK)).map((p) => [p.id, p]));
    const parking = r.records.filter((p) => p.type === 'PARKING');
    expect(parking.length).toBeGreaterThan(5);
    for (const p of parking) {
      const t = truth.get(p.id ?? '')!;
      expect(p.attrs['realtime']).toEqual({ free: t.free, occupied: t.capacity! - t.free! });
      expect(String(attr(p, 'capacity'))).toBe(String(t.capacity));
    }
  });

  it('vehicles where vehiclesAt has them, with charge, fuel and availability', async () => {
    const r = await client().coordInfoBox({ bbox: BOX, filters: [{ type: 'ANY' }] });
    const truth = new Map(vehiclesAt(world, new Date(CLOCK)).map((v) => [v.id, v]));
    const vehicles = r.records.filter((p) => p.type === 'SHARING');
    expect(vehicles.length).toBeGreaterThan(20);
    for (const p of vehicles) {
      const v = truth.get(p.id ?? '')!;
      expect(p.coord).toEqual({ lon: v.lon, lat: v.lat });
      expect(String(attr(p, 'available'))).toBe(String(v.available));
      expect(attr(p, 'chargePercent') === undefined ? null : Number(attr(p, 'chargePercent'))).toBe(v.chargePercent);
      expect(attr(p, 'fuelPercent') === undefined ? null : Number(attr(p, 'fuelPercent'))).toBe(v.fuelPercent);
    }
  });
});
