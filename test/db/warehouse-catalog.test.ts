import { describe, expect, it } from 'vitest';
import { copyTextRows } from '../../src/db/copy-warehouse.js';
import { inForeignKeyOrder, type WarehouseTable } from '../../src/db/warehouse-catalog.js';

const table = (oid: number, name: string, partitionOf?: number): WarehouseTable => ({
  oid,
  name,
  columns: ['id'],
  key: ['id'],
  pages: 1,
  ...(partitionOf === undefined ? {} : { partitionOf: { parent: 'efa.parent', parentOid: partitionOf, bound: "FOR VALUES FROM ('2026-12-07') TO ('2026-12-08')" } }),
});

describe('db copy: the order tables are copied in', () => {
  it('puts referenced tables first, a reference to a partitioned table before each of its partitions, ties by name, and survives a cycle', () => {
    const runs = table(1, 'efa.runs');
    const snapshots = table(2, 'efa.snapshots');
    const lines = table(3, 'efa.lines');
    const stopLines = table(4, 'efa.stop_lines');
    const day = table(5, 'efa_partitions.vehicle_snapshots_20261207', 90);
    const alpha = table(6, 'efa.alpha');
    // snapshots → runs; stop_lines → lines; the partitioned parent (oid 90) → snapshots, so its partition too; runs → runs (itself).
    const order = inForeignKeyOrder([day, stopLines, snapshots, runs, lines, alpha], [
      { child: 2, parent: 1 },
      { child: 4, parent: 3 },
      { child: 90, parent: 2 },
      { child: 1, parent: 1 },
    ]).map((t) => t.name);
    expect(order).toEqual(['efa.alpha', 'efa.lines', 'efa.runs', 'efa.snapshots', 'efa.stop_lines', 'efa_partitions.vehicle_snapshots_20261207']);
    // Two tables that reference each other: both still copied, by name.
    expect(inForeignKeyOrder([lines, alpha], [{ child: 3, parent: 6 }, { child: 6, parent: 3 }]).map((t) => t.name)).toEqual(['efa.alpha', 'efa.lines']);
  });

  it('counts the rows of COPY text by its lines (a newline inside a value is written \\n)', () => {
    expect(copyTextRows('')).toBe(0);
    expect(copyTextRows('1\ta\\nb\n2\t\\N\n')).toBe(2);
  });
});
