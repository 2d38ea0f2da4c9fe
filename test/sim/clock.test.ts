/** The simulator's clock: strict ISO 8601 instants, and CET/CEST local time by the EU rule. */
import { describe, expect, it } from 'vitest';
import { cetOffsetMinutes, localTime, parseClock, SimulatorOptionError, startSimulator } from '../../src/sim/index.js';

const minute = (iso: string): number => Date.parse(iso) / 60_000;

describe('clock', () => {
  it('parses instants with a zone and refuses the rest, naming the option', () => {
    expect(parseClock('2026-11-24T10:00:00+01:00').toISOString()).toBe('2026-11-24T09:00:00.000Z');
    expect(parseClock('2026-07-01T06:30Z').toISOString()).toBe('2026-07-01T06:30:00.000Z');
    for (const bad of ['2026-11-24T10:00:00', '2026-11-24', 'now', '2026-13-01T00:00:00Z']) {
      expect(() => parseClock(bad)).toThrow(SimulatorOptionError);
    }
    expect(() => parseClock('x', '--clock')).toThrow(/^--clock: /);
  });

  it('switches to summer time at 01:00 UTC on the last Sundays of March and October', () => {
    expect(cetOffsetMinutes(minute('2026-03-29T00:59:00Z'))).toBe(60);
    expect(cetOffsetMinutes(minute('2026-03-29T01:00:00Z'))).toBe(120);
    expect(cetOffsetMinutes(minute('2026-10-25T00:59:00Z'))).toBe(120);
    expect(cetOffsetMinutes(minute('2026-10-25T01:00:00Z'))).toBe(60);
    expect(cetOffsetMinutes(minute('2026-01-15T12:00:00Z'))).toBe(60);
  });

  it('gives local hour and weekday', () => {
    expect(localTime(minute('2026-11-24T09:30:00Z'))).toEqual({ hour: 10.5, weekday: 2 });
    expect(localTime(minute('2026-07-04T22:15:00Z'))).toEqual({ hour: 0.25, weekday: 0 });
  });

  it('a simulator refuses a bad clock option', async () => {
    await expect(startSimulator({ port: 0, size: 100, clock: 'soon' })).rejects.toThrow(SimulatorOptionError);
  });
});
