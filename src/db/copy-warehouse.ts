import { sql, type Kysely } from 'kysely';
import { ConfigError } from '../errors.js';
import type { Db, JobLock, Tx } from './connect.js';
import { migrate } from './migrate.js';
import type { Database } from './tables.js';
import { materializedViews } from './views.js';
import { MIGRATION_RECORDS, WAREHOUSE_SCHEMAS, recordedMigrations, warehouseSequences, warehouseTables, type WarehouseTable } from './warehouse-catalog.js';

/**
 * `efa-sync db copy`: a whole warehouse into another database, the embedded one into a PostgreSQL
 * server. The target is migrated by efa-sync's own migrations (so its views, functions, triggers and
 * grants are what `migrate` makes anywhere), then every data table of the source is copied into it,
 * in foreign-key order, by COPY out of the source and COPY into the target, in one transaction on the
 * target: a failure, a signal or a lost connection leaves the target as it was. Kept versions
 * (efa.<relation>_history), runs, the ledger (run_seen_sets, change_sets, run_tiles) and the snapshot
 * partitions are tables like the others; identity values are copied as they are and the sequences
 * set to where the source's stood, so the next night on the target continues the source's.
 */

/** Heap pages read by one COPY from the source: 16 MB of table, so a large table is never held whole. */
export const defaultChunkPages = 2048;

export interface CopyProgress {
  readonly table: string;
  /** Rows copied so far, and the table's rows. */
  readonly rows: number;
  readonly of: number;
  /** Whether the table is done (else a range of it is). */
  readonly done: boolean;
}

export interface CopyWarehouseOptions {
  /** Empty a target that holds efa data and copy into it; without it such a target is refused. */
  readonly replace?: boolean;
  readonly onProgress?: (p: CopyProgress) => void;
  readonly chunkPages?: number;
}

export interface CopiedTable {
  readonly table: string;
  /** Rows in the source, in the COPY text, and in the target before the commit: all three are equal. */
  readonly rows: number;
}

export interface CopyWarehouseResult {
  readonly tables: readonly CopiedTable[];
  readonly sequences: number;
  /** Day partitions the target did not have, created as the source's (same name and bound). */
  readonly partitionsCreated: readonly string[];
  /** With `replace`: the target's tables that held rows before, emptied in the same transaction. */
  readonly replaced: readonly string[];
  readonly schemaVersion: number;
}

/** The target holds efa data and `--replace` was not given: exit 2, naming what it holds. */
export class TargetHoldsDataError extends ConfigError {
  override name = 'TargetHoldsDataError';
  constructor(readonly target: string, readonly tables: readonly string[]) {
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ` and ${tables.length - 5} more` : '');
    super(
      `${target} already holds efa data (${shown}): db copy fills an empty database. Give another database, ` +
        'or --replace to replace what it holds with the copy (in one transaction: a failed copy leaves it as it was)',
      'to',
    );
  }
}

/** The tables of the warehouse's schemas that hold at least one row (none where there is no schema yet). */
export async function tablesHoldingRows(kysely: Kysely<Database>): Promise<string[]> {
  const holding: string[] = [];
  for (const t of await warehouseTables(kysely)) {
    const r = await sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM ONLY ${sql.raw(t.name)}) AS any`.execute(kysely);
    if (r.rows[0]?.any === true) holding.push(t.name);
  }
  return holding;
}

/**
 * Copies the warehouse `source` holds (migrated to this build) into `target`, which is migrated here
 * first. Refuses a target holding efa data unless `replace`; holds the job lock of every job either
 * database has run, so no run starts on the target while it is filled (LockedError, exit 4, when one runs).
 */
export async function copyWarehouse(source: Db, target: Db, o: CopyWarehouseOptions = {}): Promise<CopyWarehouseResult> {
  const before = await tablesHoldingRows(target.kysely);
  if (before.length > 0 && o.replace !== true) throw new TargetHoldsDataError(target.displayUrl, before);
  const migrated = await migrate(target);
  const [fromVersions, toVersions] = [await recordedMigrations(source.kysely), await recordedMigrations(target.kysely)];
  if (fromVersions.join() !== toVersions.join()) {
    throw new Error(`the source records migrations ${fromVersions.join(', ')} and the target ${toVersions.join(', ')}: migrate both with this efa-sync first`);
  }
  const locks = await lockJobs(target, [...(await jobNames(source.kysely)), ...(await jobNames(target.kysely))]);
  let result: Omit<CopyWarehouseResult, 'schemaVersion' | 'replaced'>;
  try {
    result = await source.transaction((from) => target.transaction((to) => copyAll(from, to, target.displayUrl, o), { opening: targetOpening }), { opening: sessionSettings });
  } finally {
    for (const lock of locks) await lock.release();
  }
  // Statistics for the next night's plans (ANALYZE cannot wait for autovacuum's own time).
  const copied = result.tables.filter((t) => t.rows > 0).map((t) => t.table);
  if (copied.length > 0) await target.exec(`ANALYZE ${copied.join(', ')}`);
  return { ...result, replaced: before, schemaVersion: migrated.current };
}

/**
 * Values as text the other side reads back the same whatever its own settings: times in UTC with
 * their offset, ISO dates, and floats in their shortest exact form (PostgreSQL 12 on). Geometry is
 * PostGIS's text form, hex EWKB, which keeps the SRID.
 */
const sessionSettings = "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL extra_float_digits = 1";
/** On the target also: no migration and no other creator of day partitions while it is filled (sql/020). */
const targetOpening = `${sessionSettings}; LOCK TABLE efa_private.migration_lock IN EXCLUSIVE MODE; LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE`;

async function jobNames(kysely: Kysely<Database>): Promise<string[]> {
  const exists = await sql<{ t: string | null }>`SELECT to_regclass('efa.runs')::text AS t`.execute(kysely);
  if (!exists.rows[0]?.t) return [];
  const r = await sql<{ job_name: string }>`SELECT DISTINCT job_name FROM efa.runs ORDER BY job_name`.execute(kysely);
  return r.rows.map((j) => j.job_name);
}

async function lockJobs(db: Db, jobs: readonly string[]): Promise<JobLock[]> {
  const held: JobLock[] = [];
  try {
    for (const job of new Set(jobs)) held.push(await db.lockJob(job));
  } catch (e) {
    for (const lock of held) await lock.release();
    throw e;
  }
  return held;
}

async function copyAll(from: Tx, to: Tx, targetName: string, o: CopyWarehouseOptions): Promise<Omit<CopyWarehouseResult, 'schemaVersion' | 'replaced'>> {
  if (o.replace === true) await emptyTarget(to.kysely);
  else {
    // Between the first look and this transaction's locks, a run may have written into it.
    const holding = await tablesHoldingRows(to.kysely);
    if (holding.length > 0) throw new TargetHoldsDataError(targetName, holding);
  }
  const tables = await warehouseTables(from.kysely);
  const partitionsCreated = await createMissingPartitions(to.kysely, tables);
  const existing = new Map((await warehouseTables(to.kysely)).map((t) => [t.name, t]));
  for (const t of tables) {
    const there = existing.get(t.name);
    if (there === undefined) throw new Error(`${t.name} is in the source and not in the target, whose migrations did not create it: it is no table of efa-sync's`);
    const missing = t.columns.filter((c) => !there.columns.includes(c));
    if (missing.length > 0) throw new Error(`${t.name} has column(s) ${missing.join(', ')} in the source and not in the target`);
  }
  const copied: CopiedTable[] = [];
  for (const t of tables) copied.push(await copyTable(from, to, t, o));
  const sequences = await warehouseSequences(from.kysely);
  for (const seq of sequences) {
    const r = await sql<{ v: string; called: boolean }>`SELECT last_value::text AS v, is_called AS called FROM ${sql.raw(seq)}`.execute(from.kysely);
    const at = r.rows[0];
    if (at) await sql`SELECT setval(${seq}::regclass, ${at.v}::bigint, ${at.called})`.execute(to.kysely);
  }
  // The materialized views of the copied rows (migrate made them over empty tables).
  for (const view of materializedViews) await sql.raw(`REFRESH MATERIALIZED VIEW ${view}`).execute(to.kysely);
  return { tables: copied, sequences: sequences.length, partitionsCreated };
}

/**
 * `--replace`: every table of the warehouse's schemas emptied, in the copy's transaction. efa.runs
 * refuses TRUNCATE (sql/functions/runs_append_only.sql, a guard against an accident) and is let
 * through for this statement only; the refresh marks of the views go with the rows they described.
 */
async function emptyTarget(kysely: Kysely<Database>): Promise<void> {
  const r = await sql<{ name: string }>`
    SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN (${sql.join(WAREHOUSE_SCHEMAS.map((s) => sql.lit(s)))}) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    ORDER BY 1`.execute(kysely);
  const names = r.rows.map((t) => t.name).filter((n) => !(MIGRATION_RECORDS as readonly string[]).includes(n));
  if (names.length === 0) return;
  await sql.raw('ALTER TABLE efa.runs DISABLE TRIGGER runs_no_truncate').execute(kysely);
  await sql.raw(`TRUNCATE ${names.join(', ')}`).execute(kysely);
  await sql.raw('ALTER TABLE efa.runs ENABLE TRIGGER runs_no_truncate').execute(kysely);
  await sql.raw('DELETE FROM efa_private.view_refreshes').execute(kysely);
}

/** The source's day partitions the target lacks, created with the same name and bound. */
async function createMissingPartitions(kysely: Kysely<Database>, tables: readonly WarehouseTable[]): Promise<string[]> {
  const created: string[] = [];
  for (const t of tables) {
    if (t.partitionOf === undefined) continue;
    const r = await sql<{ t: string | null }>`SELECT to_regclass(${t.name})::text AS t`.execute(kysely);
    if (r.rows[0]?.t) continue;
    await sql.raw(`CREATE TABLE ${t.name} PARTITION OF ${t.partitionOf.parent} ${t.partitionOf.bound}`).execute(kysely);
    created.push(t.name);
  }
  return created;
}

/** Rows in COPY text: one line each (a newline inside a value is escaped as \n). */
export function copyTextRows(text: string): number {
  let rows = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) rows++;
  return rows;
}

async function countRows(kysely: Kysely<Database>, table: string): Promise<number> {
  const r = await sql<{ n: string }>`SELECT count(*)::text AS n FROM ONLY ${sql.raw(table)}`.execute(kysely);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * One table, a range of heap pages at a time (a TID range scan on both PGlite 18 and PostgreSQL 15:
 * each range costs its pages, not the pages before it); its rows counted in the source, in the text
 * and in the target before the transaction commits.
 */
async function copyTable(from: Tx, to: Tx, t: WarehouseTable, o: CopyWarehouseOptions): Promise<CopiedTable> {
  const of = await countRows(from.kysely, t.name);
  if (of === 0) return { table: t.name, rows: 0 };
  const chunkPages = o.chunkPages ?? defaultChunkPages;
  const select = `SELECT ${t.columns.join(', ')} FROM ONLY ${t.name}`;
  const ranges: string[] = [];
  if (t.pages <= chunkPages) ranges.push(select);
  else {
    for (let page = 0; page < t.pages; page += chunkPages) {
      const upper = page + chunkPages >= t.pages ? '' : ` AND ctid < '(${page + chunkPages},0)'::tid`;
      ranges.push(`${select} WHERE ctid >= '(${page},0)'::tid${upper}`);
    }
  }
  let rows = 0;
  for (const query of ranges) {
    const text = await from.copyOut(query);
    if (text.length === 0) continue;
    await to.copyIn(t.name, t.columns, [text]);
    rows += copyTextRows(text);
    if (ranges.length > 1) o.onProgress?.({ table: t.name, rows, of, done: false });
  }
  const there = await countRows(to.kysely, t.name);
  if (rows !== of || there !== of) throw new Error(`${t.name}: ${of} rows in the source, ${rows} read, ${there} in the target: nothing was committed`);
  o.onProgress?.({ table: t.name, rows, of, done: true });
  return { table: t.name, rows };
}
