import { sql, type RawBuilder } from 'kysely';
import type { Entity, Relation } from '../relations/index.js';
import { qualifiedName } from '../relations/table.js';
import type { Tx } from './connect.js';
import { copyText, rowFields } from './copy.js';

/**
 * The loader (osm2pgsql style). A batch whose keys are all new to its source — every batch of a
 * first load — is COPYed straight into the entity table (tried while batches keep turning out
 * new). Any other batch is first compared by key and content hash (one index probe per key, no
 * write), and its unchanged rows are done. The rest is COPYed into a staging table and one
 * set-based statement merges it: new keys inserted, changed content updated, gone rows revived. Either way the batch's
 * keys land in efa.run_seen_sets and its inserts and updates in efa.change_sets, one row per batch
 * and kind of change (sql/007_compact_ledger.sql). Duplicate keys in one batch resolve by the
 * lowest content hash: the same answer in any order gives the same row.
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

/** A batch with one row per key, in key order, and those keys. */
interface DistinctBatch<Row> {
  readonly rows: readonly Row[];
  readonly keys: readonly string[];
}

/**
 * One row per key: the one with the lowest content hash, whatever the order of the answer; in key
 * order, so a merge takes its row locks in one order whichever job of the source runs it. The keys
 * are sorted by the array's own sort, whose order for strings is `<`'s (UTF-16 code units), without
 * a comparator called per pair: a third less time than sorting [key, row] entries by one.
 */
function distinctByKey<Row>(entity: Entity<Row>, rows: readonly Row[]): DistinctBatch<Row> {
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const key = entity.keyOf(row);
    const held = byKey.get(key);
    if (held === undefined || entity.hashOf(row) < entity.hashOf(held)) byKey.set(key, row);
  }
  const keys = [...byKey.keys()].sort();
  return { rows: keys.map((k) => byKey.get(k) as Row), keys };
}

/**
 * Relations a run's writer merges many times in one transaction (a batch of stops' ServingLines
 * answers: lines, then stop-line pairs, per stop). Sorted keys order each merge, not the sequence of
 * them, so two jobs of one source locked shared lines in different orders and deadlocked. A merge
 * into these first takes a table lock that only one writer at a time can hold (SHARE ROW EXCLUSIVE
 * conflicts with itself and with row changes, not with reads), both tables in one fixed order and
 * until the transaction ends. A reader's SELECT takes ACCESS SHARE, which does not conflict, and a
 * role that may only SELECT cannot take a stronger lock: unlike an advisory lock, no reader can
 * hold it to block a job.
 */
const SERIALISED: ReadonlySet<Relation> = new Set<Relation>(['lines', 'stop_lines']);

async function serialise(tx: Tx, relation: Relation): Promise<void> {
  if (SERIALISED.has(relation)) await sql`LOCK TABLE efa.lines, efa.stop_lines IN SHARE ROW EXCLUSIVE MODE`.execute(tx.kysely);
}

/**
 * Whether the next batch of a run's relation is likely all new: at first, whether the source holds
 * no row of it yet (a first load); then false once a COPY met a stored key, and true again once a
 * merged batch turned out to be all inserts. Held per run object. A refused COPY leaves the rows it
 * wrote before the conflict as dead tuples, so an unchanged night must never try one.
 */
const expectNew = new WeakMap<RunRef, Map<Relation, boolean>>();

async function sourceIsEmpty<Row>(tx: Tx, entity: Entity<Row>, source: string): Promise<boolean> {
  const r = await sql<{ held: boolean }>`
    SELECT EXISTS (SELECT 1 FROM ${sql.raw(qualifiedName(entity.table))} WHERE source = ${source}) AS held`.execute(tx.kysely);
  return r.rows[0]?.held !== true;
}

export interface MergeOptions {
  /**
   * A savepoint the caller set just before this call, with nothing written since (the batching
   * writer's, per group or per item): a refused first-load COPY rolls back to it instead of to one
   * of its own. Two statements less per batch, a round trip each: 1.6-1.8 s of the writer's time on
   * a million-pin first night (docs/benchmarks.md).
   */
  readonly savepoint?: string;
  /**
   * A data-modifying statement that runs as a CTE of the batch's one ledger statement (the batching
   * writer's tile records): exactly once for a batch of rows, whichever way they are written, and
   * never for none. A message less per batch.
   */
  readonly alongside?: RawBuilder<unknown>;
}

export async function mergeRows<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, rows: readonly Row[], o: MergeOptions = {}): Promise<MergeCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const batch = distinctByKey(entity, rows);
  await serialise(tx, entity.relation);
  if (!entity.direct) return mergeStaged(tx, entity, run, batch, o.alongside);
  const hints = expectNew.get(run) ?? new Map<Relation, boolean>();
  expectNew.set(run, hints);
  if (!hints.has(entity.relation)) hints.set(entity.relation, await sourceIsEmpty(tx, entity, run.source));
  if (hints.get(entity.relation) === true && (await copyNew(tx, entity, run, batch, o))) return { inserted: batch.rows.length, updated: 0, unchanged: 0 };
  // A refused COPY lands here too: the merge finds the stored keys, so the hint turns false.
  const counts = await mergeStaged(tx, entity, run, batch, o.alongside);
  hints.set(entity.relation, counts.inserted === batch.rows.length);
  return counts;
}

/**
 * Records the batch's keys as seen and returns the keys whose stored row is missing, gone or of
 * other content: only those are staged and merged. On an ordinary night nearly every row is
 * unchanged, and an INSERT … ON CONFLICT DO UPDATE locks each conflicting row even when its WHERE
 * leaves it alone (a tuple write per row, WAL and all): this read writes nothing for them. The
 * LATERAL … LIMIT 1 is one index probe per key of the batch, a plan the planner cannot trade for a
 * scan of the table whatever it guesses about the array.
 */
async function keysToMerge<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, batch: DistinctBatch<Row>, alongside?: RawBuilder<unknown>): Promise<Set<string>> {
  const keys = batch.keys;
  const hashes = batch.rows.map(entity.hashOf);
  const table = sql.raw(qualifiedName(entity.table));
  const key = sql.raw(entity.key);
  const gone = sql.raw(entity.goneColumn);
  const r = await sql<{ k: string }>`
    WITH seen AS (
      INSERT INTO efa.run_seen_sets (run_id, source, relation, keys)
      VALUES (${run.runId}::bigint, ${run.source}, ${entity.relation}, ${keys}::text[])
    )${alongsideCte(alongside)}
    SELECT b.k FROM unnest(${keys}::text[], ${hashes}::text[]) AS b(k, h)
    LEFT JOIN LATERAL (
      SELECT x.content_hash = b.h AND x.${gone} IS NULL AS same
      FROM ${table} x WHERE x.source = ${run.source} AND x.${key} = b.k LIMIT 1
    ) stored ON true
    WHERE stored.same IS NOT TRUE`.execute(tx.kysely);
  return new Set(r.rows.map((row) => row.k));
}

/** MergeOptions.alongside as one more CTE of a WITH (a data-modifying CTE runs though nothing reads it). */
const alongsideCte = (alongside: RawBuilder<unknown> | undefined) => (alongside === undefined ? sql`` : sql`, alongside AS (${alongside})`);

const isUniqueViolation = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';

/**
 * The fast path: COPY into the entity table itself. Only the table's unique key decides whether a
 * key is new — no lookup first, whose plan would rest on statistics that a first load (or a new
 * source in a large table) has not got yet. A stored key refuses the COPY, which is rolled back to
 * its savepoint, and the caller merges the batch instead (false): so is a key another job of the
 * source inserted meanwhile. The savepoint is the caller's where it set one (MergeOptions).
 */
async function copyNew<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, batch: DistinctBatch<Row>, o: MergeOptions): Promise<boolean> {
  const callerSavepoint = o.savepoint;
  const direct = entity.direct ?? [];
  const columns = ['source', entity.key, ...direct.map((c) => c.name), 'content_hash', 'first_run', 'changed_run'];
  if (callerSavepoint !== undefined && !/^[a-z_]{1,63}$/.test(callerSavepoint)) throw new TypeError(`savepoint ${JSON.stringify(callerSavepoint)} is not a plain name`);
  const savepoint = sql.raw(callerSavepoint ?? 'efa_copy_new');
  if (callerSavepoint === undefined) await sql`SAVEPOINT efa_copy_new`.execute(tx.kysely);
  try {
    await tx.copyIn(
      qualifiedName(entity.table),
      columns,
      copyText(batch.rows, rowFields([() => run.source, entity.keyOf, ...direct.map((c) => c.value), entity.hashOf, () => run.runId, () => run.runId])),
    );
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    await sql`ROLLBACK TO SAVEPOINT ${savepoint}`.execute(tx.kysely);
    // A table lock taken since the savepoint went with it.
    await serialise(tx, entity.relation);
    return false;
  }
  if (callerSavepoint === undefined) await sql`RELEASE SAVEPOINT efa_copy_new`.execute(tx.kysely);
  await sql`
    WITH batch AS (SELECT ${batch.keys}::text[] AS keys), seen AS (
      INSERT INTO efa.run_seen_sets (run_id, source, relation, keys)
      SELECT ${run.runId}::bigint, ${run.source}, ${entity.relation}, keys FROM batch
    )${alongsideCte(o.alongside)}
    INSERT INTO efa.change_sets (run_id, source, relation, op, keys)
    SELECT ${run.runId}::bigint, ${run.source}, ${entity.relation}, 'insert', keys FROM batch`.execute(tx.kysely);
  return true;
}

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
  await tx.copyIn(table, columns, copyText(rows, rowFields([entity.keyOf, entity.hashOf, ...entity.staged.map((c) => c.value)])));
}

async function mergeStaged<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, batch: DistinctBatch<Row>, alongside?: RawBuilder<unknown>): Promise<MergeCounts> {
  const changed = await keysToMerge(tx, entity, run, batch, alongside);
  const rows = batch.rows;
  if (changed.size === 0) return { inserted: 0, updated: 0, unchanged: rows.length };
  const merged = changed.size === rows.length ? rows : rows.filter((row) => changed.has(entity.keyOf(row)));
  const counts = await mergeChanged(tx, entity, run, merged);
  return { ...counts, unchanged: rows.length - counts.inserted - counts.updated };
}

/** The set-based merge of the rows keysToMerge found new, changed or gone (their keys are already in the run's seen set). */
async function mergeChanged<Row>(tx: Tx, entity: Entity<Row>, run: RunRef, batch: readonly Row[]): Promise<MergeCounts> {
  await stage(tx, entity, batch);
  const staging = sql.raw(stagingTable(entity.relation));
  const table = sql.raw(qualifiedName(entity.table));
  const key = sql.raw(entity.key);
  const gone = sql.raw(entity.goneColumn);
  const storedNames = sql.raw(entity.stored.map((c) => c.name).join(', '));
  const storedExprs = sql.raw(entity.stored.map((c) => c.expr).join(', '));
  const updates = sql.raw(entity.stored.map((c) => `${c.name} = EXCLUDED.${c.name}`).join(', '));
  const runId = sql`${run.runId}::bigint`;
  const result = await sql<{ inserted: number; updated: number }>`
    WITH input AS (
      SELECT * FROM ${staging}
    ), revived AS (
      SELECT x.${key} AS k FROM ${table} x JOIN input ON x.source = ${run.source} AND x.${key} = input.k
      WHERE x.${gone} IS NOT NULL
    ), up AS (
      INSERT INTO ${table} AS x (source, ${key}, ${storedNames}, content_hash, first_run, changed_run)
      SELECT ${run.source}, k, ${storedExprs}, h, ${runId}, ${runId} FROM input ORDER BY k
      ON CONFLICT (source, ${key}) DO UPDATE SET ${updates}, content_hash = EXCLUDED.content_hash,
        changed_run = EXCLUDED.changed_run, ${gone} = NULL
      WHERE x.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR x.${gone} IS NOT NULL
      RETURNING x.${key} AS k, (x.xmax = 0) AS inserted
    ), tagged AS (
      SELECT up.k, CASE WHEN up.inserted THEN 'insert' ELSE 'update' END AS op,
             CASE WHEN revived.k IS NOT NULL THEN 'revived' END AS detail
      FROM up LEFT JOIN revived ON revived.k = up.k
    ), logged AS (
      INSERT INTO efa.change_sets (run_id, source, relation, op, detail, keys)
      SELECT ${runId}, ${run.source}, ${entity.relation}, op, detail, array_agg(k ORDER BY k) FROM tagged GROUP BY op, detail
    )
    SELECT count(*) FILTER (WHERE op = 'insert')::int AS inserted, count(*) FILTER (WHERE op = 'update')::int AS updated
    FROM tagged`.execute(tx.kysely);
  const r = result.rows[0] ?? { inserted: 0, updated: 0 };
  return { inserted: r.inserted, updated: r.updated, unchanged: batch.length - r.inserted - r.updated };
}
