import { sql } from 'kysely';
import { isFatal } from '../errors.js';
import type { Entity, Relation } from '../relations/index.js';
import { failpoint } from '../util/failpoint.js';
import type { Db, Tx } from './connect.js';
import { insertRejects, recordTiles, tileRecordsInsert, type RejectInput, type TileRecord } from './ledger.js';
import { mergeRows, type MergeOptions } from './merge.js';
import { checkLease, leaseStatement, type OpenedRun } from './runs.js';

/**
 * What a kept tile's rows commit with: its record in the ledger and the records its answer
 * rejected (a unit's name for them). Written set-based beside the rows, not as statements per tile.
 */
export interface RowsLedger {
  readonly tile: TileRecord;
  readonly unit: string;
  readonly rejects: readonly RejectInput[];
}

/**
 * Entity rows an item writes, with its ledger lines. The writer merges the rows of all waiting
 * items of one relation with one mergeRows (one COPY for a first load's many tiles, not one each)
 * and records their tiles in one statement.
 */
interface RowsPart {
  readonly relation: Relation;
  readonly rows: readonly unknown[];
  readonly ledger: RowsLedger;
  /** With the savepoint the writer set just before and the tile records to write alongside (MergeOptions). */
  readonly merge: (tx: Tx, rows: readonly unknown[], o: MergeOptions) => Promise<unknown>;
}

/** A work item: its own statements (`fn`), or rows with their ledger lines (`part`). */
type Work = { readonly fn: (tx: Tx) => Promise<unknown> } | { readonly part: RowsPart };

type Pending = Work & {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
};

/** How many waiting work items one transaction takes at most. */
const batchLimit = 100;

export interface BatchingWriter {
  <T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Merges `rows` into the entity's table and writes their ledger lines, in one transaction.
   * Waiting items' rows of the same relation are merged together; should that fail, each item
   * merges its own.
   */
  rows<Row>(entity: Entity<Row>, rows: readonly Row[], ledger: RowsLedger): Promise<void>;
  /** Milliseconds the writer spent in its transactions so far: the run's load, overlapped with its requests. */
  busyMs(): number;
}

/**
 * Parts of one relation: their rows in one merge, their tiles in the merge's ledger statement (or in
 * one of their own where there are no rows), rejects where there are any.
 */
async function writeParts(tx: Tx, run: OpenedRun, parts: readonly RowsPart[], savepoint: string): Promise<void> {
  const first = parts[0];
  if (!first) return;
  const rows = parts.length === 1 ? first.rows : parts.flatMap((p) => p.rows);
  const tiles = parts.map((p) => p.ledger.tile);
  if (rows.length > 0) await first.merge(tx, rows, { savepoint, alongside: tileRecordsInsert(run.runId, tiles) });
  else await recordTiles(tx.kysely, run.runId, tiles);
  for (const { ledger } of parts) {
    await insertRejects(tx.kysely, run, ledger.unit, ledger.rejects);
    failpoint('tile-commit');
  }
}

type Group = readonly (Pending & { part: RowsPart })[];

/** The items that carry parts, per relation where two or more wait: each group is one merge. */
function groupsOf(batch: readonly Pending[]): Group[] {
  const byRelation = new Map<Relation, (Pending & { part: RowsPart })[]>();
  for (const item of batch) if ('part' in item) byRelation.set(item.part.relation, [...(byRelation.get(item.part.relation) ?? []), item]);
  // One item alone is written in its own savepoint (drain): a group's would be a second one.
  return [...byRelation.values()].filter((items) => items.length >= 2);
}

/**
 * The groups' parts, each group in a savepoint of its own; the first group's was set by the message
 * that began the transaction (drain). Returns the items whose parts are written; a group that failed
 * is rolled back and left to its items.
 */
async function writeGroups(tx: Tx, run: OpenedRun, groups: readonly Group[]): Promise<Set<Pending>> {
  const written = new Set<Pending>();
  for (const [i, items] of groups.entries()) {
    if (i > 0) await sql`SAVEPOINT efa_rows`.execute(tx.kysely);
    try {
      // Not released: the commit releases it, and a later group's efa_rows nests in it, so a
      // rollback to efa_rows still undoes the newest group alone (a round trip less per group).
      await writeParts(tx, run, items.map((item) => item.part), 'efa_rows');
      items.forEach((item) => written.add(item));
    } catch (error) {
      if (isFatal(error)) throw error;
      await sql`ROLLBACK TO SAVEPOINT efa_rows`.execute(tx.kysely);
      tx.session.clear();
    }
  }
  return written;
}

/**
 * Tiles and stops arrive concurrently. One writer avoids deadlocks between batches that share keys
 * (a pin on a shared edge); grouping the items that wait into one transaction saves a commit each,
 * which is most of the cost of a small unit on PGlite (one stop's lines: a few rows), and merging
 * their rows together saves a COPY and a statement per tile. The writer commits in the order it was
 * given work: what a caller hands it later never commits before what it handed it earlier.
 */
export function createBatchingWriter(db: Db, run: OpenedRun): BatchingWriter {
  const pending: Pending[] = [];
  let draining = false;
  let busyMs = 0;
  // On a server only: PGlite runs inside this process, so its crash is the server's, and without a
  // WAL writer its unflushed commits would not even reach the file system (assertLease).
  const asyncCommit = db.kind === 'postgres';
  const drain = async (): Promise<void> => {
    draining = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, batchLimit);
      const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
      const started = performance.now();
      const groups = groupsOf(batch);
      // The lease check, and the first savepoint (the first group's, else the first item's), in the
      // message that begins the transaction.
      const opening = leaseStatement(run, { asyncCommit }) + (groups.length > 0 ? '; SAVEPOINT efa_rows' : '; SAVEPOINT efa_item');
      // Without a group no item is written before the loop below, so its first item's savepoint is set.
      const openedWith = groups.length > 0 ? undefined : batch[0];
      try {
        await db.transaction(async (tx) => {
          checkLease(tx.opened, run);
          const written = await writeGroups(tx, run, groups);
          for (const item of batch) {
            if (written.has(item)) {
              outcomes.push({ ok: true, value: undefined });
              continue;
            }
            // Each item's savepoint nests in the one before and is never released: a rollback to
            // the newest efa_item undoes that item alone, and a batch saves a round trip per item
            // (the commit releases them all).
            if (item !== openedWith) await sql`SAVEPOINT efa_item`.execute(tx.kysely);
            try {
              outcomes.push({ ok: true, value: 'part' in item ? await writeParts(tx, run, [item.part], 'efa_item') : await item.fn(tx) });
            } catch (error) {
              if (isFatal(error)) throw error;
              await sql`ROLLBACK TO SAVEPOINT efa_item`.execute(tx.kysely);
              // A temporary table the item created is gone with it.
              tx.session.clear();
              outcomes.push({ ok: false, error });
            }
          }
        }, { opening });
      } catch (error) {
        busyMs += performance.now() - started;
        batch.forEach((item) => item.reject(error));
        continue;
      }
      busyMs += performance.now() - started;
      batch.forEach((item, i) => {
        const o = outcomes[i];
        if (o?.ok) item.resolve(o.value);
        else item.reject(o?.error);
      });
    }
    draining = false;
  };
  const enqueue = <T>(work: Work): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.push({ ...work, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) void drain();
    });
  const write = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => enqueue<T>({ fn });
  return Object.assign(write, {
    rows: <Row>(entity: Entity<Row>, rows: readonly Row[], ledger: RowsLedger): Promise<void> =>
      enqueue<void>({
        part: {
          relation: entity.relation,
          rows,
          ledger,
          // Items are grouped by relation, so every row handed back here is one of this entity's.
          merge: (tx, all, o) => mergeRows(tx, entity, run, all as readonly Row[], o),
        },
      }),
    busyMs: () => busyMs,
  });
}
