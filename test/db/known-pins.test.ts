import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownPinPoints } from '../../src/db/known.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * What night two plans from: the live pins of the job's source and types inside the region's envelope
 * (its edge included), as the doubles stored, read as one value of EWKB laid end to end.
 */
describe('knownPinPoints', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await t.db.exec(`
      INSERT INTO efa.runs (run_id, job_name, job_hash, source) VALUES (1, 'j', 'h', 's');
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run, deleted_at) VALUES
        ('s', 'STOP:1', 'STOP', '1', 'in', 'SRID=4326;POINT(9.1815123 48.7838456)', 'a', 1, 1, NULL),
        ('s', 'STOP:2', 'STOP', '2', 'on the edge', 'SRID=4326;POINT(9.3 48.85)', 'a', 1, 1, NULL),
        ('s', 'POI_POINT:3', 'POI_POINT', '3', 'poi', 'SRID=4326;POINT(9.2 48.8)', 'a', 1, 1, NULL),
        ('s', 'PARKING:4', 'PARKING', '4', 'car park', 'SRID=4326;POINT(9.21 48.81)', 'a', 1, 1, NULL),
        ('s', 'STOP:5', 'STOP', '5', 'outside', 'SRID=4326;POINT(9.4 48.8)', 'a', 1, 1, NULL),
        ('s', 'STOP:6', 'STOP', '6', 'gone', 'SRID=4326;POINT(9.15 48.75)', 'a', 1, 1, now()),
        ('other', 'STOP:7', 'STOP', '7', 'another source', 'SRID=4326;POINT(9.16 48.76)', 'a', 1, 1, NULL);
      -- Two fids apart by more than one read's range (250,000): the pins are read range by range.
      INSERT INTO efa.pins (fid, source, pin_key, type, id, name, geom, content_hash, first_run, changed_run) OVERRIDING SYSTEM VALUE VALUES
        (600000, 's', 'STOP:8', 'STOP', '8', 'a later read', 'SRID=4326;POINT(9.11 48.71)', 'a', 1, 1);`);
  }, 120_000);
  afterAll(async () => t?.dispose());

  const region = { bbox: [9.05, 48.7, 9.3, 48.85] as [number, number, number, number] };
  const pairs = (points: Float64Array): number[][] => {
    const out: number[][] = [];
    for (let i = 0; i < points.length; i += 2) out.push([points[i]!, points[i + 1]!]);
    return out.sort((a, b) => a[0]! - b[0]!);
  };

  it('reads the live pins of the source and the types inside the envelope, the edge included, as stored', async () => {
    const stops = await knownPinPoints(t.db.kysely, 's', { types: ['STOP'], maxPerRequest: 1000, minTileSizeDeg: 0.002 }, region);
    expect(pairs(stops)).toEqual([[9.11, 48.71], [9.1815123, 48.7838456], [9.3, 48.85]]);
    const both = await knownPinPoints(t.db.kysely, 's', { types: ['STOP', 'POI_POINT'], maxPerRequest: 1000, minTileSizeDeg: 0.002 }, region);
    expect(pairs(both)).toEqual([[9.11, 48.71], [9.1815123, 48.7838456], [9.2, 48.8], [9.3, 48.85]]);
  });

  it('reads nothing for a source without pins', async () => {
    expect((await knownPinPoints(t.db.kysely, 'none', { types: ['STOP'], maxPerRequest: 1000, minTileSizeDeg: 0.002 }, region)).length).toBe(0);
  });
});
