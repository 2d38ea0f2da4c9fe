import type { Job } from '../job/index.js';
import type { WholeSweepDeletion } from './deletion-sql.js';
import type { TableDefinition } from './table.js';

/**
 * What efa-sync knows about one entity relation, in one place (gtfs-via-postgres style): its row,
 * key, content hash, how its columns travel into the database and become stored columns, and
 * what a run of a job looks at (its deletion scope), and its table's declaration (`table`), from which
 * its history, as-of functions and comments are generated. Its deletion predicate
 * `efa.gone_<relation>(run_id)` is SQL written by hand (sql/004_sources.sql).
 */

export const RELATIONS = ['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas', 'sharing_stations'] as const;
export type Relation = (typeof RELATIONS)[number];

/** A value as it travels in a COPY row. */
export type CopyValue = string | number | boolean | null;

/**
 * One column of a relation, written once: the staged, stored and direct COPY lists derive from it
 * (stagedColumns, storedColumns, directColumns), as osm2pgsql's flex tables derive theirs.
 */
export interface Column<Row> {
  /** Column of the relation's table. */
  readonly name: string;
  /** The SQL type of its value as staged. */
  readonly type: string;
  /** Its value in a COPY row. */
  readonly value: (row: Row) => CopyValue;
  /** The staging column's name, where the stored expression reads it under another (an area's `geojson`). */
  readonly staged?: string;
  /** SQL computing the stored column from the staged ones, where it is not the staged value itself. */
  readonly expr?: string;
}

export interface StagedColumn<Row> {
  /** Column of the staging table. */
  readonly name: string;
  /** Its SQL type in the staging table. */
  readonly type: string;
  readonly value: (row: Row) => CopyValue;
}

export interface StoredColumn {
  /** Column of the entity table. */
  readonly name: string;
  /** SQL computing it from the staged columns. */
  readonly expr: string;
}

export interface DirectColumn<Row> {
  /** Column of the entity table. */
  readonly name: string;
  readonly value: (row: Row) => CopyValue;
}

/** A relation's three COPY lists from its one column list; `direct` where it takes the loader's fast path. */
export function columnLists<Row>(
  columns: readonly Column<Row>[],
  o: { readonly direct: boolean },
): Pick<Entity<Row>, 'staged' | 'stored' | 'direct'> {
  return { staged: stagedColumns(columns), stored: storedColumns(columns), ...(o.direct ? { direct: directColumns(columns) } : {}) };
}

/** The staging table's columns: each column under its staged name. */
export function stagedColumns<Row>(columns: readonly Column<Row>[]): StagedColumn<Row>[] {
  return columns.map((c) => ({ name: c.staged ?? c.name, type: c.type, value: c.value }));
}

/** The table's columns as the merge statement computes them from the staged ones. */
export function storedColumns<Row>(columns: readonly Column<Row>[]): StoredColumn[] {
  return columns.map((c) => ({ name: c.name, expr: c.expr ?? c.staged ?? c.name }));
}

/**
 * The table's columns as a COPY straight into it writes them (the loader's fast path for keys new
 * to the table): only where every stored column is its staged value, so both paths store the same.
 */
export function directColumns<Row>(columns: readonly Column<Row>[]): DirectColumn<Row>[] {
  const computed = columns.filter((c) => c.expr !== undefined).map((c) => c.name);
  if (computed.length > 0) throw new Error(`columns ${computed.join(', ')} are computed in SQL: a relation with them cannot be COPYed directly`);
  return columns.map((c) => ({ name: c.name, value: c.value }));
}

export interface Entity<Row> {
  readonly relation: Relation;
  /** The entity table, declared once: its SQL (table, history, comments) is generated from it (table.ts). */
  readonly table: TableDefinition;
  /** The column holding the object's own key within its source. */
  readonly key: string;
  /** Set when a run found the object gone (never a hard delete). */
  readonly goneColumn: 'deleted_at' | 'ended_at';
  readonly keyOf: (row: Row) => string;
  /** Decides whether a row changed: equal hash, no write. */
  readonly hashOf: (row: Row) => string;
  /** Relations whose rows this one's refer to: written before it (a stop-line pair refers to its line). */
  readonly after: readonly Relation[];
  /** Relations whose deletions decide this one's, marked gone before it (a line is gone once no live pair serves it). */
  readonly goneAfter: readonly Relation[];
  readonly staged: readonly StagedColumn<Row>[];
  readonly stored: readonly StoredColumn[];
  /**
   * The stored columns computed from a row in TypeScript, for the loader's fast path: a batch of
   * keys new to the table is COPYed straight into it, with no staging and no merge statement.
   * Optional: without it new rows take the staging path too. Gives what `stored` gives (directColumns).
   */
  readonly direct?: readonly DirectColumn<Row>[];
  /**
   * What a run of `job` looks at for this relation, recorded in efa.runs.scope.relations and read
   * by the SQL deletion predicate; undefined when the job does not sweep the relation at all.
   * Two runs compare their "seen before" only under equal scopes.
   */
  readonly scopeOf: (job: Job) => Readonly<Record<string, unknown>> | undefined;
  /**
   * Where one operation sweeps the relation whole, its deletion predicate efa.gone_<relation> is
   * generated from this (deletion-sql.ts); otherwise it is a file of sql/functions/.
   */
  readonly deletion?: WholeSweepDeletion;
}

export const json = (v: unknown): string => JSON.stringify(v);
