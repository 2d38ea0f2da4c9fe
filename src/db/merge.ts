import { sql } from 'kysely';
import type { Entity, Relation } from '../entities/index.js';
import type { Tx } from './connect.js';
import { copyText } from './copy.js';

/**
 * The loader (osm2pgsql style): a batch of rows is COPYed into a staging table, then one set-based
 * statement merges it into the entity table: new keys inserted, changed content (by hash) updated,
 * unchanged rows not touched (no new tuple), gone rows revived; and, in the same statement, every
 * key lands in efa.run_seen and every insert and update in efa.changes. Duplicate keys in one batch
 * resolve by the lowest content hash: the same answer in any order gives the same row.
 */

export interface MergeCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface RunRef {
  readonly runId: string;
  readonly source: string;
}

const stagingTable = (relation: Relation): string => `efa_stage_${relation}`;

/**
 * The staging table lives for the session (temporary, unlogged by nature), created on first use on
 * each connection and emptied before each batch.
 */
async function stage<Row>(tx: Tx, entity: Entity<Row>, rows: readonly Row[]): Promise<void> {
  const table = stagingTable(entity.relation);
  const columns = ['k', 'h', ...entity.staged.map((c) => c.name)];
  if (!tx.session.has(table)) {
    const defs = ['k text', 'h text', ...entity.staged.map((c) => `${c.name} ${c.type}`)].join(', ');
    await sql.raw(`CREATE TEMP TABLE IF NOT EXISTS ${table} (${defs})`).execute(tx.kysely);
    tx.session.add(table);
  }
  await sql.raw(`TRUNCATE ${table}`).execute(tx.kysely);
  await tx.copyIn(table, columns, copyText(rows, (r) => [entity.keyOf(r), entity.hashOf(r), ...entity.staged.map((c) => c.value(r))]));
}

export async function mergeRows<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, rows: readonly Row[]): Promise<MergeCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  await stage(tx, entity, rows);
  const staging = sql.raw(stagingTable(entity.relation));
  const table = sql.raw(entity.table);
  const key = sql.raw(entity.key);
  const gone = sql.raw(entity.goneColumn);
  const storedNames = sql.raw(entity.stored.map((c) => c.name).join(', '));
  const storedExprs = sql.raw(entity.stored.map((c) => c.expr).join(', '));
  const updates = sql.raw(entity.stored.map((c) => `${c.name} = EXCLUDED.${c.name}`).join(', '));
  const runId = sql`${run.runId}::bigint`;
  const result = await sql<{ inserted: number; updated: number; total: number }>`
    WITH input AS (
      SELECT DISTINCT ON (k) * FROM ${staging} ORDER BY k, h
    ), revived AS (
      SELECT x.${key} AS k FROM ${table} x JOIN input ON x.source = ${run.source} AND x.${key} = input.k
      WHERE x.${gone} IS NOT NULL
    ), up AS (
      INSERT INTO ${table} AS x (source, ${key}, ${storedNames}, content_hash, first_run, changed_run)
      SELECT ${run.source}, k, ${storedExprs}, h, ${runId}, ${runId} FROM input
      ON CONFLICT (source, ${key}) DO UPDATE SET ${updates}, content_hash = EXCLUDED.content_hash,
        changed_run = EXCLUDED.changed_run, ${gone} = NULL
      WHERE x.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR x.${gone} IS NOT NULL
      RETURNING x.${key} AS k, (x.xmax = 0) AS inserted
    ), seen AS (
      INSERT INTO efa.run_seen (run_id, source, relation, key)
      SELECT ${runId}, ${run.source}, ${entity.relation}, k FROM input ON CONFLICT DO NOTHING
    ), logged AS (
      INSERT INTO efa.changes (run_id, source, relation, key, op, detail)
      SELECT ${runId}, ${run.source}, ${entity.relation}, up.k, CASE WHEN up.inserted THEN 'insert' ELSE 'update' END,
             CASE WHEN revived.k IS NOT NULL THEN 'revived' END
      FROM up LEFT JOIN revived ON revived.k = up.k
    )
    SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
           (SELECT count(*) FROM input)::int AS total
    FROM up`.execute(tx.kysely);
  const r = result.rows[0] ?? { inserted: 0, updated: 0, total: 0 };
  return { inserted: r.inserted, updated: r.updated, unchanged: r.total - r.inserted - r.updated };
}
