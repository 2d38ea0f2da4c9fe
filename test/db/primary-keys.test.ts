import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * QGIS and GDAL/OGR open a table as a layer with a key only when it has a primary key (issue 45 point 9):
 * every table of the warehouse has one, the partitioned snapshot tables and their day partitions too.
 */
describe('primary keys', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    // A day's partitions, as the snapshot writer creates them: they take the parent's key.
    await sql`SELECT efa.ensure_snapshot_partitions(current_date)`.execute(t.db.kysely);
  }, 240_000);
  afterAll(async () => t.dispose());

  it('are on every table of efa and efa_partitions (efa_private holds only lock tables, no rows)', async () => {
    const tables = await sql<{ schema: string; name: string; partitioned: boolean; partition: boolean }>`
      SELECT n.nspname::text AS schema, c.relname::text AS name, c.relkind = 'p' AS partitioned, c.relispartition AS partition
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname IN ('efa', 'efa_partitions') AND c.relkind IN ('r', 'p')`.execute(t.db.kysely);
    // The check must see what it is about: the roll-ups named in the issue, and partitioned tables with partitions.
    const names = tables.rows.map((r) => `${r.schema}.${r.name}`);
    expect(names).toEqual(expect.arrayContaining(['efa.vehicle_hourly', 'efa.vehicle_hex_hourly_cells', 'efa.vehicle_latest']));
    expect(tables.rows.filter((r) => r.partitioned).length).toBeGreaterThan(0);
    expect(tables.rows.filter((r) => r.partition).length).toBeGreaterThan(0);
    const keyless = await sql<{ name: string }>`
      SELECT n.nspname || '.' || c.relname AS name
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname IN ('efa', 'efa_partitions') AND c.relkind IN ('r', 'p')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')
      ORDER BY 1`.execute(t.db.kysely);
    expect(keyless.rows.map((r) => r.name)).toEqual([]);
  });

  it('and every view of efa shows source, whose keys repeat across sources (issue 45 point 6)', async () => {
    const views = await sql<{ name: string }>`
      SELECT c.relname::text AS name
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'efa' AND c.relkind IN ('v', 'm')
        AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname IN ('source', 'sources') AND NOT a.attisdropped)
      ORDER BY 1`.execute(t.db.kysely);
    expect(views.rows.map((r) => r.name)).toEqual([]);
  });
});
