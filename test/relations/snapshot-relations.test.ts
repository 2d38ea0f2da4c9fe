import { describe, expect, it } from 'vitest';
import { snapshotCopyColumns, snapshotRelationOf, snapshotRelations } from '../../src/relations/index.js';

describe('the snapshot relations', () => {
  it('copy every declared column but the identity, each once', () => {
    for (const r of snapshotRelations) {
      const copied = snapshotCopyColumns(r);
      expect(new Set(copied).size, r.table.name).toBe(copied.length);
      const declared = r.table.columns.filter((c) => !c.identity).map((c) => c.name);
      expect([...copied].sort(), r.table.name).toEqual([...declared].sort());
    }
  });

  it('are partitioned by the snapshot time, which every key and unique constraint holds', () => {
    for (const r of snapshotRelations) {
      expect(r.table.partitionBy).toBe('RANGE (taken_at)');
      expect(r.table.primaryKey[0]).toBe('taken_at');
      for (const k of r.table.constraints.filter((c) => c.sql.startsWith('UNIQUE'))) expect(k.sql).toContain('(taken_at');
    }
    expect(Object.keys(snapshotRelationOf)).toEqual(['vehicles', 'parking']);
  });
});
