import { describe, expect, it } from 'vitest';
import { hiveValue, partitionPath } from '../../src/lake/partition.js';
import { lakeRelationsOf, nextDay, parseDay } from '../../src/lake/relations.js';

/** The lake's folder names: a source stored in the warehouse is hostile until encoded. */
describe('lake partition folders', () => {
  it('keeps a plain source and percent-encodes anything that could name another folder', () => {
    expect(partitionPath('vehicle_snapshots', 'vvs.de-2', '2026-11-20')).toBe('vehicle_snapshots/source=vvs.de-2/day=2026-11-20');
    expect(hiveValue('../etc')).toBe('%2E.%2Fetc');
    expect(hiveValue('a=b/c%d')).toBe('a%3Db%2Fc%25d');
    expect(hiveValue('Zürich')).toBe('Z%C3%BCrich');
    for (const hostile of ['..', '.', '/', 'a/../../b', '.hidden']) {
      const v = hiveValue(hostile);
      expect(v).not.toContain('/');
      expect(v.startsWith('.')).toBe(false);
    }
  });

  it('takes real calendar days and known relations only', () => {
    expect(parseDay('2024-02-29', '--since')).toBe('2024-02-29');
    expect(() => parseDay('2026-02-29', '--since')).toThrow(/--since: expected a day as YYYY-MM-DD/);
    expect(() => parseDay('2026-11-20T00:00', '--until')).toThrow(/--until/);
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    expect(lakeRelationsOf('efa.vehicle_snapshots, pins_history').map((r) => r.name)).toEqual(['vehicle_snapshots', 'pins_history']);
    expect(lakeRelationsOf(undefined).map((r) => r.name)).toContain('operating_areas_history');
    expect(() => lakeRelationsOf('pins')).toThrow(/--relations: "pins" is not in the lake/);
  });
});
