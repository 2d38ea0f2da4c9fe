import type { Job } from '../job/index.js';

/**
 * What efa-sync knows about one entity relation, in one place (gtfs-via-postgres style): its row,
 * key, content hash, how its columns travel into the database and become stored columns, and
 * what a run of a job looks at (its deletion scope). The SQL side of the same relation is its
 * table in sql/ and its deletion predicate `efa.gone_<relation>(run_id)` (sql/004_sources.sql).
 */

export const RELATIONS = ['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas'] as const;
export type Relation = (typeof RELATIONS)[number];

/** A value as it travels in a COPY row. */
export type CopyValue = string | number | boolean | null;

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

export interface Entity<Row> {
  readonly relation: Relation;
  /** The entity table, schema-qualified. */
  readonly table: string;
  /** The column holding the object's own key within its source. */
  readonly key: string;
  /** Set when a run found the object gone (never a hard delete). */
  readonly goneColumn: 'deleted_at' | 'ended_at';
  readonly keyOf: (row: Row) => string;
  /** Decides whether a row changed: equal hash, no write. */
  readonly hashOf: (row: Row) => string;
  readonly staged: readonly StagedColumn<Row>[];
  readonly stored: readonly StoredColumn[];
  /**
   * The stored columns computed from a row in TypeScript, for the loader's fast path: a batch of
   * keys new to the table is COPYed straight into it, with no staging and no merge statement.
   * Optional: without it new rows take the staging path too. Must give what `stored` gives.
   */
  readonly direct?: readonly DirectColumn<Row>[];
  /**
   * What a run of `job` looks at for this relation, recorded in efa.runs.scope.relations and read
   * by the SQL deletion predicate; undefined when the job does not sweep the relation at all.
   * Two runs compare their "seen before" only under equal scopes.
   */
  readonly scopeOf: (job: Job) => Readonly<Record<string, unknown>> | undefined;
}

export const json = (v: unknown): string => JSON.stringify(v);
