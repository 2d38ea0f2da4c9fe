import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './tables.js';

/**
 * Set-based upsert with change detection for the entity tables (osm2pgsql style): a batch of rows
 * travels as one array per column, is unnested, de-duplicated by key, and merged with
 * INSERT … ON CONFLICT … DO UPDATE … WHERE the content hash differs. Unchanged rows are not
 * rewritten (no new tuple), every insert and update lands in efa.changes, and every key seen
 * lands in efa.run_seen for deletion detection.
 */

export type Relation = 'pins' | 'lines' | 'notices' | 'sharing_providers' | 'operating_areas' | 'stop_lines';

export interface Column<Row> {
  readonly name: string;
  /** The SQL array type the column travels in, e.g. 'text[]', 'float8[]'. */
  readonly arrayType: string;
  readonly value: (row: Row) => unknown;
}

export interface TrackedRelation<Row> {
  readonly relation: Exclude<Relation, 'stop_lines'>;
  readonly key: string;
  readonly keyOf: (row: Row) => string;
  readonly hashOf: (row: Row) => string;
  /** Input columns (besides key and hash), as they travel. */
  readonly inputs: readonly Column<Row>[];
  /** Target columns and the SQL expression computing each from the input columns. */
  readonly targets: readonly { readonly name: string; readonly expr: string }[];
  readonly goneColumn: 'deleted_at' | 'ended_at';
}

export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

function unnestInput<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): RawBuilder<unknown> {
  const arrays = columns.map((c) => sql`${rows.map(c.value)}::${sql.raw(c.arrayType)}`);
  const names = columns.map((c) => sql.raw(c.name));
  return sql`unnest(${sql.join(arrays)}) AS t(${sql.join(names)})`;
}

export async function upsertTracked<Row>(
  db: Kysely<Database>,
  spec: TrackedRelation<Row>,
  runId: string,
  rows: readonly Row[],
): Promise<UpsertCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const columns: Column<Row>[] = [
    { name: 'k', arrayType: 'text[]', value: spec.keyOf },
    { name: 'h', arrayType: 'text[]', value: spec.hashOf },
    ...spec.inputs,
  ];
  const table = sql.raw(`efa.${spec.relation}`);
  const key = sql.raw(spec.key);
  const gone = sql.raw(spec.goneColumn);
  const targetNames = sql.raw(spec.targets.map((t) => t.name).join(', '));
  const targetExprs = sql.raw(spec.targets.map((t) => t.expr).join(', '));
  const updates = sql.raw(spec.targets.map((t) => `${t.name} = EXCLUDED.${t.name}`).join(', '));
  const result = await sql<{ inserted: number; updated: number; total: number }>`
    WITH input AS (
      SELECT DISTINCT ON (k) * FROM ${unnestInput(rows, columns)} ORDER BY k
    ), prev AS (
      SELECT x.${key} AS k, x.${gone} AS gone FROM ${table} x JOIN input ON input.k = x.${key}
    ), up AS (
      INSERT INTO ${table} AS x (${key}, ${targetNames}, content_hash, first_run, changed_run)
      SELECT k, ${targetExprs}, h, ${runId}::bigint, ${runId}::bigint FROM input
      ON CONFLICT (${key}) DO UPDATE SET ${updates}, content_hash = EXCLUDED.content_hash,
        changed_run = EXCLUDED.changed_run, ${gone} = NULL
      WHERE x.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR x.${gone} IS NOT NULL
      RETURNING x.${key} AS k, (x.xmax = 0) AS inserted
    ), seen AS (
      INSERT INTO efa.run_seen (run_id, relation, key)
      SELECT ${runId}::bigint, ${spec.relation}, k FROM input ON CONFLICT DO NOTHING
    ), logged AS (
      INSERT INTO efa.changes (run_id, relation, key, op, detail)
      SELECT ${runId}::bigint, ${spec.relation}, up.k, CASE WHEN up.inserted THEN 'insert' ELSE 'update' END,
             CASE WHEN prev.gone IS NOT NULL THEN 'revived' END
      FROM up LEFT JOIN prev ON prev.k = up.k
    )
    SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
           (SELECT count(*) FROM input)::int AS total
    FROM up`.execute(db);
  const r = result.rows[0] ?? { inserted: 0, updated: 0, total: 0 };
  return { inserted: r.inserted, updated: r.updated, unchanged: r.total - r.inserted - r.updated };
}

/** Which lines serve which stop: a pair is inserted once and revived if it had been marked gone. */
export async function upsertStopLines(
  db: Kysely<Database>,
  runId: string,
  pairs: readonly { stopId: string; lineKey: string }[],
): Promise<UpsertCounts> {
  if (pairs.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const result = await sql<{ inserted: number; updated: number; total: number }>`
    WITH input AS (
      SELECT DISTINCT s, l, s || '|' || l AS k
      FROM unnest(${pairs.map((p) => p.stopId)}::text[], ${pairs.map((p) => p.lineKey)}::text[]) AS t(s, l)
    ), up AS (
      INSERT INTO efa.stop_lines AS x (stop_id, line_key, first_run)
      SELECT s, l, ${runId}::bigint FROM input
      ON CONFLICT (stop_id, line_key) DO UPDATE SET deleted_at = NULL WHERE x.deleted_at IS NOT NULL
      RETURNING x.stop_id || '|' || x.line_key AS k, (x.xmax = 0) AS inserted
    ), seen AS (
      INSERT INTO efa.run_seen (run_id, relation, key) SELECT ${runId}::bigint, 'stop_lines', k FROM input ON CONFLICT DO NOTHING
    ), logged AS (
      INSERT INTO efa.changes (run_id, relation, key, op, detail)
      SELECT ${runId}::bigint, 'stop_lines', k, CASE WHEN inserted THEN 'insert' ELSE 'update' END,
             CASE WHEN inserted THEN NULL ELSE 'revived' END
      FROM up
    )
    SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
           (SELECT count(*) FROM input)::int AS total
    FROM up`.execute(db);
  const r = result.rows[0] ?? { inserted: 0, updated: 0, total: 0 };
  return { inserted: r.inserted, updated: r.updated, unchanged: r.total - r.inserted - r.updated };
}
