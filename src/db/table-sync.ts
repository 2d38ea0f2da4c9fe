import { sql } from 'kysely';
import { createHistoryTableSql, hasHistory, historyIndexes, seedGoneVersionsSql, versionedColumns } from '../relations/history-sql.js';
import { relationTables } from '../relations/definitions.js';
import { addColumnSql, createIndexSql, createTableSql, type ColumnDefinition, type TableDefinition } from '../relations/table.js';
import type { Db } from './connect.js';
import { migrationLockStatement } from './migration-lock.js';

/**
 * A relation's table in the database differs from its declaration in a way sync does not repair
 * (a column's type or nullability, a column the declaration lacks): dlt-style, the difference is
 * named and a developer writes the numbered migration that makes the change.
 */
export class TableDeclarationError extends Error {
  override name = 'TableDeclarationError';
  constructor(readonly differences: readonly string[]) {
    super(
      `the database differs from the relations' declarations (src/relations/): ${differences.join('; ')}. ` +
        'Sync only creates missing tables, columns and indexes: write a numbered migration (sql/NNN_<what>.sql) that makes this change',
    );
  }
}

interface CatalogColumn {
  readonly type: string;
  readonly notNull: boolean;
}

/** What the database has of the declared tables, read in one query: columns per table and index names. */
interface Catalog {
  readonly columns: ReadonlyMap<string, ReadonlyMap<string, CatalogColumn>>;
  readonly indexes: ReadonlySet<string>;
}

async function readCatalog(db: Db, tables: readonly string[]): Promise<Catalog> {
  const r = await sql<{ tbl: string; name: string; type: string | null; not_null: boolean | null }>`
    SELECT c.relname::text AS tbl, a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = 'efa' AND c.relkind IN ('r', 'p') AND c.relname = ANY(${tables}::text[])
    UNION ALL
    SELECT NULL, i.relname::text, NULL, NULL
    FROM pg_class i JOIN pg_namespace n ON n.oid = i.relnamespace
    WHERE n.nspname = 'efa' AND i.relkind IN ('i', 'I')`.execute(db.kysely);
  const columns = new Map<string, Map<string, CatalogColumn>>();
  const indexes = new Set<string>();
  for (const row of r.rows) {
    if (row.tbl === null) {
      indexes.add(row.name);
      continue;
    }
    const cols = columns.get(row.tbl) ?? new Map<string, CatalogColumn>();
    // format_type qualifies a type outside the search path (public.geometry); the declarations do not.
    cols.set(row.name, { type: (row.type ?? '').replace(/^public\./, ''), notNull: row.not_null === true });
    columns.set(row.tbl, cols);
  }
  return { columns, indexes };
}

const shape = (c: { type: string; notNull?: boolean }): string => `${c.type}${c.notNull ? ' NOT NULL' : ''}`;

/**
 * The statements that bring one table to its declaration (create it, add missing columns), and
 * the differences they cannot mend. `extra` are columns the table may have beyond the declared
 * ones (a history table's own: hist_id, valid, …).
 */
function planTable(
  table: string,
  declared: readonly ColumnDefinition[],
  existing: ReadonlyMap<string, CatalogColumn>,
  o: { readonly extra: readonly string[]; readonly add: (c: ColumnDefinition) => string },
): { statements: string[]; differences: string[] } {
  const statements: string[] = [];
  const differences: string[] = [];
  for (const c of declared) {
    const has = existing.get(c.name);
    if (!has) statements.push(o.add(c));
    else if (has.type !== c.type || has.notNull !== (c.notNull ?? false))
      differences.push(`efa.${table}.${c.name} is ${shape(has)} but declared ${shape(c)}`);
  }
  for (const name of existing.keys()) {
    if (!declared.some((c) => c.name === name) && !o.extra.includes(name)) differences.push(`efa.${table}.${name} exists but is not declared`);
  }
  return { statements, differences };
}

const historyOwnColumns = ['hist_id', 'valid', 'ended_by', 'replaced_by'];

/** The DDL that makes the database hold every declared table, history table, column and index. */
function planRelationTables(tables: readonly TableDefinition[], catalog: Catalog): { statements: string[]; differences: string[] } {
  const statements: string[] = [];
  const differences: string[] = [];
  for (const t of tables) {
    const existing = catalog.columns.get(t.name);
    if (!existing) statements.push(createTableSql(t));
    else {
      const plan = planTable(t.name, t.columns, existing, { extra: [], add: (c) => addColumnSql(t, c) });
      statements.push(...plan.statements);
      differences.push(...plan.differences);
    }
    for (const i of t.indexes) if (!catalog.indexes.has(i.name)) statements.push(createIndexSql(t, i));
    if (!hasHistory(t)) continue;
    const h = { schema: t.schema, name: `${t.name}_history` };
    const history = catalog.columns.get(h.name);
    if (!history) {
      // An existing table's rows already gone get their last version with the new history table.
      statements.push(createHistoryTableSql(t), ...(existing ? [seedGoneVersionsSql(t)] : []));
      continue;
    }
    // A version keeps every column nullable but the two it cannot lack (createHistoryTableSql).
    const versioned = versionedColumns(t).map((c) => ({ ...c, notNull: c.name === 'fid' || c.name === 'source', identity: false, default: undefined }));
    const plan = planTable(h.name, versioned, history, { extra: historyOwnColumns, add: (c) => addColumnSql(h, c) });
    statements.push(...plan.statements);
    differences.push(...plan.differences);
    for (const i of historyIndexes(t)) if (!catalog.indexes.has(i.name)) statements.push(createIndexSql(h, i));
  }
  return { statements, differences };
}

/** What sync would do to the database (statements) and what it refuses to (differences): one catalog query. */
export async function relationTablesPlan(db: Db): Promise<{ statements: string[]; differences: string[] }> {
  const tables = relationTables();
  const names = tables.flatMap((t) => [t.name, ...(hasHistory(t) ? [`${t.name}_history`] : [])]);
  return planRelationTables(tables, await readCatalog(db, names));
}

/**
 * Brings the database's relation tables to their declarations, in write order: creates a missing
 * table with its indexes, a missing history table with its indexes, a missing index, and adds a
 * declared column a table lacks; never anything else (TableDeclarationError names what else
 * differs). Runs after the numbered migrations. An up-to-date database costs one catalog query:
 * no lock is taken and no DDL runs.
 */
export async function syncRelationTables(db: Db): Promise<void> {
  const plan = await relationTablesPlan(db);
  if (plan.differences.length > 0) throw new TableDeclarationError(plan.differences);
  if (plan.statements.length === 0) return;
  // Under the migrations' lock (the same statement migrate and the definitions take); every
  // statement says IF NOT EXISTS, so a concurrent sync that got there first leaves nothing to do.
  await db.exec(`BEGIN;
    ${await migrationLockStatement(db)}
    ${plan.statements.join('\n')}
    COMMIT;`);
}
