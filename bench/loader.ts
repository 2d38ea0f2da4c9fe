/**
 * Load throughput of the loader (mergeRows with the pins entity: a batch of new keys COPYed
 * straight into efa.pins, any other batch staged and merged in one statement; tiles of rows handed
 * to the sweep's batching writer, as the sweep writes) beside a plain COPY of the same rows into a
 * table with the same columns, constraints and indexes, on the same database, in the same run:
 *   COPY          all rows in one COPY … FROM STDIN (the baseline: timed before and after the loader, the mean)
 *   first load    the loader into an empty efa.pins: every row an insert (+ seen and change sets)
 *   night two     the same rows under a new run: all unchanged, no entity row written
 *   5 % changed   the same rows with every 20th changed: 5 % updates, 95 % unchanged
 *   per tile      the first load again (another source) with a commit per tile
 * On the local PostgreSQL + PostGIS (BENCH_PG_URL); on embedded PGlite too, with fewer rows.
 *
 * History (sql/014_history.sql) is measured on and off: each database is loaded twice, once with
 * efa.pins' history trigger disabled and once with it (a fresh database each), and the loader
 * phases are compared, with the versions each phase wrote into efa.pins_history.
 */
import { sql } from 'kysely';
import type { Db } from '../src/db/connect.js';
import { relationCounts } from '../src/db/ledger.js';
import { createRun, type OpenedRun } from '../src/db/runs.js';
import { mergeRows, type MergeCounts } from '../src/db/merge.js';
import { migrate } from '../src/db/migrate.js';
import type { Pin } from '../src/efa/records.js';
import { pins as pinsEntity, toPinRow, type PinRow } from '../src/relations/index.js';
import { createBatchingWriter } from '../src/db/batching-writer.js';
import { baselineText, benchPins, copyColumns, pgliteTarget, postgresTarget, type Target } from './bench-pins.js';
import { int, postgresReachable, ratio, secs, type BenchLine, type BenchResult } from './util.js';

export interface LoaderBenchOptions {
  /** Rows on PostgreSQL. */
  readonly rows?: number;
  /** Rows on PGlite; 0 skips PGlite. */
  readonly pgliteRows?: number;
  /** Rows per loader call: one CoordInfo tile's worth (the sweep's maxPerRequest is 200–1000). */
  readonly batch?: number;
}

interface Phase {
  readonly name: string;
  readonly ms: number;
  readonly rows: number;
  readonly counts?: MergeCounts;
  /** Versions the phase wrote into efa.pins_history. */
  readonly versions?: number;
}

async function keptVersions(db: Db): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins_history`.execute(db.kysely);
  return r.rows[0]?.n ?? 0;
}

/**
 * As the sweep writes: every tile's rows go to the run's batching writer (src/db/batching-writer.ts)
 * as its answer arrives. When the database is what limits the run — the case a loader bench is
 * about — tiles wait for the writer and the waiting ones share one transaction: their rows in one
 * merge, their tile records in one statement.
 * `perTile` commits every tile alone instead: a run whose requests, not its database, set the pace.
 */
async function loadInBatches(db: Db, run: OpenedRun, rows: readonly PinRow[], batch: number, perTile = false): Promise<MergeCounts> {
  const writer = createBatchingWriter(db, run);
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < rows.length; i += batch) {
    const part = rows.slice(i, i + batch);
    if (perTile) await db.transaction((tx) => mergeRows(tx, pinsEntity, run, part));
    else {
      // Each batch stands for a tile: its record is written with its rows, as the sweep writes it.
      const tile = { operation: 'coordInfo', tileId: `bench/${i}`, depth: 0, status: 'done' as const, attempts: 1, hits: part.length, durationMs: 0 };
      pending.push(writer.rows(pinsEntity, part, { tile, unit: tile.tileId, rejects: [] }));
    }
  }
  await Promise.all(pending);
  // What the ledger says the run did, as the run's own report reads it.
  const counts = (await relationCounts(db.kysely, run.runId)).pins;
  return { inserted: counts?.inserted ?? 0, updated: counts?.updated ?? 0, unchanged: counts?.unchanged ?? 0 };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function benchTarget(target: Target, pins: readonly Pin[], batch: number, history: boolean): Promise<Phase[]> {
  const { db } = target;
  const n = pins.length;
  await migrate(db);
  // History off: the table as it was before sql/014 (no trigger fires, no version is written).
  if (!history) await db.exec('ALTER TABLE efa.pins DISABLE TRIGGER pins_history');
  // Same columns, defaults, CHECK, primary key and indexes (GiST on geom, type, id) and the same foreign keys.
  await db.exec(`
    CREATE SCHEMA bench;
    CREATE TABLE bench.pins_copy (LIKE efa.pins INCLUDING ALL);
    ALTER TABLE bench.pins_copy ADD FOREIGN KEY (first_run) REFERENCES efa.runs (run_id),
                                ADD FOREIGN KEY (changed_run) REFERENCES efa.runs (run_id);
    CREATE TABLE bench.pins_copy_after (LIKE bench.pins_copy INCLUDING ALL);
    ALTER TABLE bench.pins_copy_after ADD FOREIGN KEY (first_run) REFERENCES efa.runs (run_id),
                                      ADD FOREIGN KEY (changed_run) REFERENCES efa.runs (run_id);`);
  const scope = { source: 'bench', region: '{"type":"Polygon","coordinates":[]}', regionMax: [0, 0] as const, relations: {} };
  const newRun = (night: string): Promise<OpenedRun> => createRun(db.kysely, { jobName: `bench-${night}`, jobHash: 'bench', scope, options: {} });

  // Rows are normalised before the clocks start: both sides load the same PinRow objects.
  const rows = pins.map(toPinRow);
  // An attribute change: a name change would change the key of a pin without id (a new pin, not an update).
  const changed = pins.map((p, i) => (i % 20 === 0 ? toPinRow({ ...p, attrs: { ...p.attrs, benchRevision: 2 } }) : rows[i] as PinRow));

  const phases: Phase[] = [];
  const copyRun = await newRun('copy');
  const copy = await timed(() => db.transaction((tx) => tx.copyIn('bench.pins_copy', copyColumns, baselineText(rows, copyRun.runId))));

  const run1 = await newRun('1');
  const v0 = await keptVersions(db);
  const first = await timed(() => loadInBatches(db, run1, rows, batch));
  const v1 = await keptVersions(db);
  phases.push({ name: 'loader: first load (all inserts)', ms: first.ms, rows: n, counts: first.value, versions: v1 - v0 });
  // A night later autovacuum will have analysed the table; without it the planner guesses from an empty one.
  await sql`ANALYZE efa.pins`.execute(db.kysely);

  const run2 = await newRun('2');
  const second = await timed(() => loadInBatches(db, run2, rows, batch));
  const v2 = await keptVersions(db);
  phases.push({ name: 'loader: night two (all unchanged)', ms: second.ms, rows: n, counts: second.value, versions: v2 - v1 });

  const run3 = await newRun('3');
  const third = await timed(() => loadInBatches(db, run3, changed, batch));
  const v3 = await keptVersions(db);
  phases.push({ name: 'loader: 5 % changed', ms: third.ms, rows: n, counts: third.value, versions: v3 - v2 });

  // The same first load with a commit per tile, on a second source (the table already holds the
  // first's rows, so its indexes are deeper: this figure errs low).
  const tileRun = await createRun(db.kysely, { jobName: 'bench-tile', jobHash: 'bench', scope: { ...scope, source: 'bench-tile' }, options: {} });
  const perTile = await timed(() => loadInBatches(db, tileRun, rows, batch, true));
  phases.push({ name: 'loader: first load, a commit per tile', ms: perTile.ms, rows: n, counts: perTile.value, versions: (await keptVersions(db)) - v3 });

  // The baseline again, after the loader: a machine that got busier or quieter meanwhile moves
  // both sides of the ratio, not one.
  const copyAfter = await timed(() => db.transaction((tx) => tx.copyIn('bench.pins_copy_after', copyColumns, baselineText(rows, copyRun.runId))));
  console.log(`${target.label}: baseline COPY ${secs(copy.ms)} before the loader, ${secs(copyAfter.ms)} after; the mean is the baseline`);
  phases.unshift({ name: 'COPY (one stream, baseline)', ms: (copy.ms + copyAfter.ms) / 2, rows: n });

  const check = await sql<{ copied: number; loaded: number; changes: number }>`
    SELECT (SELECT count(*) FROM bench.pins_copy)::int AS copied, (SELECT count(*) FROM efa.pins WHERE source = 'bench')::int AS loaded,
           (SELECT count(*) FROM efa.changes WHERE relation = 'pins' AND source = 'bench')::int AS changes`.execute(db.kysely);
  const c = check.rows[0] as { copied: number; loaded: number; changes: number } | undefined;
  const expectedUpdates = Math.ceil(n / 20);
  const ok =
    c?.copied === n && c.loaded === n && first.value.inserted === n && perTile.value.inserted === n && second.value.unchanged === n && third.value.updated === expectedUpdates &&
    // History on: only the 5 % changed night's updates leave versions; off: none at all.
    v3 - v2 === (history ? expectedUpdates : 0) && v1 - v0 === 0 && v2 - v1 === 0;
  console.log(
    `${target.label}: check ${ok ? 'ok' : 'MISMATCH'}: copied ${c?.copied}, loaded ${c?.loaded}, change-log rows ${c?.changes} ` +
      `(expected ${n} + ${expectedUpdates})`,
  );
  if (!ok) throw new Error(`${target.label}: the loader bench's row counts are not what was loaded (${JSON.stringify({ c, first, second, third })})`);
  return phases;
}

function report(label: string, phases: readonly Phase[], batch: number): BenchLine[] {
  const copy = phases[0];
  if (!copy) return [];
  const copyRate = copy.rows / (copy.ms / 1000);
  const table = phases.map((p) => {
    const rate = p.rows / (p.ms / 1000);
    return {
      phase: p.name,
      rows: p.rows,
      time: secs(p.ms),
      'rows/s': int(rate),
      'vs COPY': ratio(rate, copyRate),
      'ins/upd/same': p.counts ? `${p.counts.inserted}/${p.counts.updated}/${p.counts.unchanged}` : '-',
      versions: p.versions ?? '-',
    };
  });
  console.log(
    `${label}: ${copy.rows} pins in tile order; tiles of ${batch} rows handed to the sweep's batching writer (waiting tiles share a transaction, a savepoint each), and once with a commit per tile. Both tables have ` +
      `the primary key (fid), the unique (source, pin_key), GiST(geom), (source, type), (source, id) and global_id indexes, the CHECK and both run foreign keys of efa.pins; the loader also ` +
      `looks up the batch's keys and writes efa.run_seen_sets and efa.change_sets (one row per batch and kind of change), COPY only the table.`,
  );
  console.table(table);
  return phases.slice(1).map((p) => ({
    metric: `${label} ${p.name.replace('loader: ', 'loader ')} rows/s`,
    value: int(p.rows / (p.ms / 1000)),
    baseline: `COPY ${int(copyRate)}`,
    ratio: ratio(p.rows / (p.ms / 1000), copyRate),
  }));
}

export async function benchLoader(opts: LoaderBenchOptions = {}): Promise<BenchResult> {
  const rows = opts.rows ?? 100_000;
  const pgliteRows = opts.pgliteRows ?? 20_000;
  const batch = opts.batch ?? 500;
  const lines: BenchLine[] = [];
  const notes: string[] = [];
  const t0 = performance.now();
  const pins = benchPins(Math.max(rows, pgliteRows));
  console.log(`generated ${pins.length} distinct pins in ${secs(performance.now() - t0)}`);

  const reach = await postgresReachable();
  if (reach.ok) {
    lines.push(...(await historyOnOff('PostgreSQL', postgresTarget, pins.slice(0, rows), batch)));
  } else {
    const note = `PostgreSQL not reachable (${reach.reason}): measured on PGlite only`;
    console.log(note);
    notes.push(note);
  }

  if (pgliteRows > 0) lines.push(...(await historyOnOff('PGlite', pgliteTarget, pins.slice(0, pgliteRows), batch)));
  return { lines, notes };
}

/**
 * History on vs off for one kind of database. This machine's load drifts by more than the effect
 * measured, so each comparison interleaves the two modes within seconds and keeps each mode's best:
 *   first loads: the table above, history off and on, a fresh database each, `rounds` times in
 *     alternating order (off-on, on-off, …);
 *   nights: in one database loaded once, the history trigger disabled and enabled in turn (ABBA),
 *     each turn a 5 %-changed night (new content for every 20th pin) and then an unchanged night.
 * `vs off` is the time with history over the time without.
 */
async function historyOnOff(label: string, open: () => Promise<Target>, pins: readonly Pin[], batch: number): Promise<BenchLine[]> {
  const lines: BenchLine[] = [];
  const rounds = Math.max(1, Number(process.env['BENCH_HISTORY_ROUNDS'] ?? 2));
  const byMode: Record<'off' | 'on', Phase[][]> = { off: [], on: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const t = performance.now();
      const target = await open();
      if (label === 'PGlite') console.log(`PGlite started in ${secs(performance.now() - t)}`);
      try {
        const phases = await benchTarget(target, pins, batch, mode === 'on');
        byMode[mode].push(phases);
        lines.push(...report(`${label} (history ${mode}, round ${round + 1})`, phases, batch));
      } finally {
        await target.dispose();
      }
    }
  }
  const best = (mode: 'off' | 'on', name: string): Phase => {
    const all = byMode[mode].map((phases) => phases.find((p) => p.name === name) as Phase);
    return all.reduce((a, b) => (b.ms < a.ms ? b : a));
  };
  const nights = await nightsOnOff(open, pins, batch, rounds);
  const row = (phase: string, off: number, on: number, versions: number) => ({
    phase, off: secs(off), on: secs(on), 'vs off': (on / off).toFixed(2), 'versions written': versions,
  });
  const first = 'loader: first load (all inserts)';
  const perTile = 'loader: first load, a commit per tile';
  const table = [
    row('first load (A/B in one database)', nights.off.first, nights.on.first, 0),
    row(`${first}, fresh databases`, best('off', first).ms, best('on', first).ms, best('on', first).versions ?? 0),
    row(perTile, best('off', perTile).ms, best('on', perTile).ms, best('on', perTile).versions ?? 0),
    row('5 % changed night (A/B in one database)', nights.off.changed, nights.on.changed, nights.on.changedVersions),
    row('unchanged night (A/B in one database)', nights.off.unchanged, nights.on.unchanged, nights.on.unchangedVersions),
  ];
  console.log(
    `${label}: history on vs off, best of ${rounds} each (${pins.length} pins; the goal: first load and 5 % changed <= 1.2x, an unchanged night writes no version)`,
  );
  console.table(table);
  for (const r of table) lines.push({ metric: `${label} history on: ${r.phase.replace('loader: ', '')}`, value: r.on, baseline: `history off ${r.off}`, ratio: `${r['vs off']}x` });
  return lines;
}

interface NightTimes {
  first: number;
  changed: number;
  unchanged: number;
  changedVersions: number;
  unchangedVersions: number;
}

async function nightsOnOff(open: () => Promise<Target>, pins: readonly Pin[], batch: number, rounds: number): Promise<Record<'off' | 'on', NightTimes>> {
  const target = await open();
  const { db } = target;
  try {
    await migrate(db);
    const scope = (source: string) => ({ source, region: '{"type":"Polygon","coordinates":[]}', regionMax: [0, 0] as const, relations: {} });
    const newRun = (night: string, source = 'bench-ab'): Promise<OpenedRun> =>
      createRun(db.kysely, { jobName: `bench-ab-${night}`, jobHash: 'bench', scope: scope(source), options: {} });
    const rows = pins.map(toPinRow);
    const out: Record<'off' | 'on', NightTimes> = {
      off: { first: Infinity, changed: Infinity, unchanged: Infinity, changedVersions: 0, unchangedVersions: 0 },
      on: { first: Infinity, changed: Infinity, unchanged: Infinity, changedVersions: 0, unchangedVersions: 0 },
    };
    const order = Array.from({ length: 2 * rounds }, (_, i) => ((i % 4 === 0 || i % 4 === 3) ? 'on' : 'off') as 'off' | 'on');
    // First loads of sources of their own (the COPY fast path), in the same order: the table grows
    // under both modes alike.
    for (const [i, mode] of order.entries()) {
      await db.exec(`ALTER TABLE efa.pins ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER pins_history`);
      const run = await newRun(`first${i}`, i === 0 ? 'bench-ab' : `bench-ab-${i}`);
      const f = await timed(() => loadInBatches(db, run, rows, batch));
      out[mode].first = Math.min(out[mode].first, f.ms);
    }
    await sql`ANALYZE efa.pins`.execute(db.kysely);
    for (const [i, mode] of order.entries()) {
      await db.exec(`ALTER TABLE efa.pins ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER pins_history`);
      // New content for every 20th pin (the rest as loaded): 5 % updates each turn.
      const changed = pins.map((p, j) => (j % 20 === 0 ? toPinRow({ ...p, attrs: { ...p.attrs, benchRevision: i + 2 } }) : (rows[j] as PinRow)));
      const [cRun, uRun] = [await newRun(`c${i}`), await newRun(`u${i}`)];
      const v0 = await keptVersions(db);
      const c = await timed(() => loadInBatches(db, cRun, changed, batch));
      const v1 = await keptVersions(db);
      const u = await timed(() => loadInBatches(db, uRun, changed, batch));
      const v2 = await keptVersions(db);
      const m = out[mode];
      m.changed = Math.min(m.changed, c.ms);
      m.unchanged = Math.min(m.unchanged, u.ms);
      m.changedVersions = v1 - v0;
      m.unchangedVersions = v2 - v1;
      const updates = Math.ceil(pins.length / 20);
      if (c.value.updated !== updates || u.value.updated !== 0 || v1 - v0 !== (mode === 'on' ? updates : 0) || v2 !== v1) {
        throw new Error(`history A/B (${mode}): expected ${updates} updates and as many versions with history on, then none; got ${c.value.updated} updates, ${v1 - v0} versions, then ${u.value.updated} and ${v2 - v1}`);
      }
    }
    await db.exec('ALTER TABLE efa.pins ENABLE TRIGGER pins_history');
    return out;
  } finally {
    await target.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchLoader();
