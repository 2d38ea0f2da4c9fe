import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

/**
 * What `db copy` reads from the catalog (copy-warehouse.ts): the tables that hold the warehouse's
 * data, their columns and foreign keys, and the sequences. Views, functions and triggers are not
 * here: they are definitions efa-sync applies itself (definitions.ts), which `migrate` creates on
 * the target as it does on any database.
 */

/** The schemas whose tables are the warehouse: `efa` and the day partitions of the snapshot tables. */
export const WAREHOUSE_SCHEMAS = ['efa', 'efa_partitions'] as const;

/**
 * Tables of those schemas that are not data: the target's own `migrate` writes them, and the copy
 * checks that both record the same migrations. (efa_private is not copied either: its job lock
 * secrets are the target's own, its lock tables are empty, and its refresh marks describe views the
 * copy refreshes itself.)
 */
export const MIGRATION_RECORDS = ['efa.schema_migrations', 'efa.schema_definitions'] as const;

export interface WarehouseTable {
  readonly oid: number;
  /** Schema-qualified and quoted as SQL needs it (`efa.pins`, `efa_partitions.vehicle_snapshots_20261207`). */
  readonly name: string;
  /** The columns COPY carries, quoted, in table order: every column but generated ones. */
  readonly columns: readonly string[];
  /** The primary key's columns, quoted: the order a comparison reads rows in. */
  readonly key: readonly string[];
  /** A day partition: its partitioned table and its bound, to create it where it is missing. */
  readonly partitionOf?: { readonly parent: string; readonly parentOid: number; readonly bound: string };
  /** Heap pages (pg_relation_size / block_size): the copy reads a range of them at a time. */
  readonly pages: number;
}

const schemaList = sql.join(WAREHOUSE_SCHEMAS.map((s) => sql.lit(s)));

/** The data tables of the warehouse (partitions as the leaves they are), in foreign-key order. */
export async function warehouseTables(kysely: Kysely<Database>): Promise<WarehouseTable[]> {
  const tables = await sql<{ oid: number; name: string; parent: string | null; parent_oid: number | null; bound: string | null; pages: number }>`
    SELECT c.oid::int AS oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name,
           quote_ident(pn.nspname) || '.' || quote_ident(p.relname) AS parent, p.oid::int AS parent_oid,
           CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound,
           (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_inherits i ON c.relispartition AND i.inhrelid = c.oid
    LEFT JOIN pg_class p ON p.oid = i.inhparent
    LEFT JOIN pg_namespace pn ON pn.oid = p.relnamespace
    WHERE n.nspname IN (${schemaList}) AND c.relkind = 'r'`.execute(kysely);
  const columns = await sql<{ oid: number; name: string }>`
    SELECT a.attrelid::int AS oid, quote_ident(a.attname) AS name
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN (${schemaList}) AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
    ORDER BY a.attrelid, a.attnum`.execute(kysely);
  const keyOrder = await sql<{ oid: number; name: string }>`
    SELECT k.conrelid::int AS oid, quote_ident(a.attname) AS name
    FROM pg_constraint k
    JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, pos) ON true
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
    JOIN pg_namespace n ON n.oid = k.connamespace
    WHERE k.contype = 'p' AND n.nspname IN (${schemaList})
    ORDER BY k.conrelid, u.pos`.execute(kysely);
  const references = await sql<{ child: number; parent: number }>`
    SELECT conrelid::int AS child, confrelid::int AS parent FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid`.execute(kysely);
  const skipped = new Set<string>(MIGRATION_RECORDS);
  const found = tables.rows
    .filter((t) => !skipped.has(t.name))
    .map((t): WarehouseTable => ({
      oid: t.oid,
      name: t.name,
      columns: columns.rows.filter((c) => c.oid === t.oid).map((c) => c.name),
      key: keyOrder.rows.filter((k) => k.oid === t.oid).map((k) => k.name),
      ...(t.parent !== null && t.parent_oid !== null && t.bound !== null ? { partitionOf: { parent: t.parent, parentOid: t.parent_oid, bound: t.bound } } : {}),
      pages: Number(t.pages),
    }));
  return inForeignKeyOrder(found, references.rows);
}

/**
 * Referenced tables before the tables that reference them (a reference to a partitioned table is one
 * to each of its partitions); ties by name, so the order is the same every time.
 */
export function inForeignKeyOrder(tables: readonly WarehouseTable[], references: readonly { child: number; parent: number }[]): WarehouseTable[] {
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  const leavesOf = (oid: number): number[] => (byOid.has(oid) ? [oid] : tables.filter((t) => t.partitionOf?.parentOid === oid).map((t) => t.oid));
  const needs = new Map<number, Set<number>>(tables.map((t) => [t.oid, new Set<number>()]));
  for (const r of references) {
    for (const child of leavesOf(r.child)) for (const parent of leavesOf(r.parent)) if (child !== parent) needs.get(child)?.add(parent);
  }
  const ordered: WarehouseTable[] = [];
  const placed = new Set<number>();
  const byName = [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  while (ordered.length < tables.length) {
    const next = byName.find((t) => !placed.has(t.oid) && [...(needs.get(t.oid) ?? [])].every((p) => placed.has(p)))
      // A cycle of foreign keys (none in efa-sync's schema): the rest by name; each COPY checks its keys at its end.
      ?? byName.find((t) => !placed.has(t.oid));
    if (next === undefined) break;
    ordered.push(next);
    placed.add(next.oid);
  }
  return ordered;
}

/** The sequences of the warehouse's schemas (the identity columns'), quoted and schema-qualified. */
export async function warehouseSequences(kysely: Kysely<Database>): Promise<string[]> {
  const r = await sql<{ name: string }>`
    SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN (${schemaList}) AND c.relkind = 'S' ORDER BY 1`.execute(kysely);
  return r.rows.map((s) => s.name);
}

/**
 * The migrations a database records, sorted. Versions, not checksums: a database migrated before a
 * file's bytes changed records a legacy checksum of the same migration (legacy-checksums.ts).
 */
export async function recordedMigrations(kysely: Kysely<Database>): Promise<number[]> {
  const r = await sql<{ version: number }>`SELECT version FROM efa.schema_migrations ORDER BY version`.execute(kysely);
  return r.rows.map((m) => Number(m.version));
}
