import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { instantOfText, isTimeZone } from '../../src/util/time-zone.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * Wall-clock times to instants (src/util/time-zone.ts) agree with PostgreSQL's `timestamp AT TIME
 * ZONE` (what efa.parse_instant and so efa.current_parking use) on every quarter hour around the DST
 * changes of 2026 in zones with one-hour, half-hour and no changes: the snapshot tables and the views
 * give a zone-less reading the same instant, gaps and repeated hours included.
 */
const days: Record<string, string[]> = {
  'Europe/Berlin': ['2026-03-29', '2026-10-25'],
  'America/New_York': ['2026-03-08', '2026-11-01'],
  'Australia/Lord_Howe': ['2026-04-05', '2026-10-04'],
  'Asia/Kolkata': ['2026-03-29'],
  'America/Sao_Paulo': ['2026-11-01'],
};

function quarterHours(day: string): string[] {
  return Array.from({ length: 96 }, (_, i) => `${day}T${String(Math.floor(i / 4)).padStart(2, '0')}:${String((i % 4) * 15).padStart(2, '0')}:00`);
}

describe('wall time in a zone: the same instant as PostgreSQL', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  }, 120_000);
  afterAll(async () => t?.dispose());

  it.each(Object.entries(days))('%s', async (zone, list) => {
    const texts = list.flatMap(quarterHours);
    const r = await sql<{ text: string; at: Date }>`
      SELECT x AS text, (x::timestamp AT TIME ZONE ${zone}) AS at FROM unnest(${texts}::text[]) AS x`.execute(t.db.kysely);
    const byPostgres = r.rows.map((row) => [row.text, new Date(row.at).toISOString()]);
    expect(texts.map((text) => [text, instantOfText(text, zone)?.toISOString()])).toEqual(byPostgres);
    // efa.parse_instant(text, zone), what efa.current_parking reads measuredAt with, gives the same instants.
    const viaFunction = await sql<{ at: Date }>`SELECT efa.parse_instant(x, ${zone}) AS at FROM unnest(${texts}::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n`.execute(t.db.kysely);
    expect(viaFunction.rows.map((row, i) => [texts[i], new Date(row.at).toISOString()])).toEqual(byPostgres);
  });

  it('texts with an offset are read as written; impossible dates, other shapes and no zone give null', () => {
    expect(instantOfText('2026-11-24T09:58:00+01:00', 'America/New_York')?.toISOString()).toBe('2026-11-24T08:58:00.000Z');
    expect(instantOfText('2026-11-24T09:58:00Z', undefined)?.toISOString()).toBe('2026-11-24T09:58:00.000Z');
    expect(instantOfText('2026-11-24T09:58:00', undefined)).toBeNull();
    expect(instantOfText('2026-02-30T09:58:00', 'Europe/Berlin')).toBeNull();
    expect(instantOfText('2026-11-24T24:30:00', 'Europe/Berlin')).toBeNull();
    expect(instantOfText('yesterday', 'Europe/Berlin')).toBeNull();
    expect(instantOfText(1_700_000_000, 'Europe/Berlin')).toBeNull();
  });

  it('a time zone is an IANA name: offsets, POSIX rules and unknown names are refused', () => {
    expect(['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT-1'].map(isTimeZone)).toEqual([true, true, true, true]);
    expect(['+01:00', 'CET-1CEST', 'Mars/Olympus', '', 'Europe/Berlin; DROP'].map(isTimeZone)).toEqual([false, false, false, false, false]);
  });
});
