/**
 * Grows a snapshot warehouse by SQL, as issue 32's own measurement did: the snapshots of one day that
 * the project's writer stored (raw rows in their day partition, their runs, their snapshot records and
 * their roll-ups) are copied to a later day, shifted in time. A month of 5-minute snapshots of 5,000
 * vehicles through the writer takes hours on two cores; the copies give the same rows, partitions and
 * roll-ups in minutes, and the days the bench times (the first and the last) are written by the writer.
 */
import { sql } from 'kysely';
import type { Db } from '../src/db/connect.js';
import { ensureSnapshotPartitions } from '../src/db/snapshots.js';

/** The columns of a table but its identity `fid`, in order: the copy lets each row draw a new one. */
async function copiedColumns(db: Pick<Db, 'kysely'>, table: string): Promise<string[]> {
  const r = await sql<{ c: string }>`
    SELECT a.attname AS c FROM pg_attribute a
    WHERE a.attrelid = ${table}::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> 'fid'
    ORDER BY a.attnum`.execute(db.kysely);
  return r.rows.map((x) => x.c);
}

const quoted = (cols: readonly string[]): string => cols.map((c) => `"${c}"`).join(', ');

/**
 * Copies day `from` (UTC) to day `to`: new runs for its snapshot runs, their snapshot records, the raw
 * vehicle and parking rows and the hourly roll-ups, everything shifted by the days between them.
 * One transaction per day, so a day is there whole or not at all.
 */
export async function copySnapshotDay(db: Db, from: Date, to: Date): Promise<void> {
  const shift = `${Math.round((to.getTime() - from.getTime()) / 86_400_000)} days`;
  await ensureSnapshotPartitions(db, to);
  const runCols = (await copiedColumns(db, 'efa.runs')).filter((c) => c !== 'run_id');
  const snapCols = (await copiedColumns(db, 'efa.snapshots')).filter((c) => c !== 'run_id' && c !== 'taken_at');
  const vehCols = (await copiedColumns(db, 'efa.vehicle_snapshots')).filter((c) => c !== 'run_id' && c !== 'taken_at');
  const parkCols = (await copiedColumns(db, 'efa.parking_snapshots')).filter((c) => c !== 'run_id' && c !== 'taken_at');
  const lo = from.toISOString();
  const hi = new Date(from.getTime() + 86_400_000).toISOString();
  const shifted = (c: string): string => (c === 'started_at' || c === 'finished_at' || c === 'heartbeat_at' ? `"${c}" + interval '${shift}'` : `"${c}"`);
  await db.transaction(async (tx) => {
    const run = (text: string) => sql.raw(text).execute(tx.kysely);
    await run(`CREATE TEMP TABLE grow_runs ON COMMIT DROP AS
      SELECT s.run_id AS old_run, nextval(pg_get_serial_sequence('efa.runs', 'run_id')) AS new_run
      FROM (SELECT DISTINCT run_id FROM efa.snapshots WHERE taken_at >= '${lo}' AND taken_at < '${hi}') s`);
    await run(`INSERT INTO efa.runs (run_id, ${quoted(runCols)})
      SELECT m.new_run, ${runCols.map(shifted).join(', ')} FROM efa.runs r JOIN grow_runs m ON m.old_run = r.run_id`);
    await run(`INSERT INTO efa.snapshots (run_id, taken_at, ${quoted(snapCols)})
      SELECT m.new_run, s.taken_at + interval '${shift}', ${snapCols.map((c) => `s."${c}"`).join(', ')}
      FROM efa.snapshots s JOIN grow_runs m ON m.old_run = s.run_id`);
    await run(`INSERT INTO efa.vehicle_snapshots (run_id, taken_at, ${quoted(vehCols)})
      SELECT m.new_run, v.taken_at + interval '${shift}', ${vehCols.map((c) => `v."${c}"`).join(', ')}
      FROM efa.vehicle_snapshots v JOIN grow_runs m ON m.old_run = v.run_id
      WHERE v.taken_at >= '${lo}' AND v.taken_at < '${hi}'`);
    await run(`INSERT INTO efa.parking_snapshots (run_id, taken_at, ${quoted(parkCols)})
      SELECT m.new_run, p.taken_at + interval '${shift}', ${parkCols.map((c) => `p."${c}"`).join(', ')}
      FROM efa.parking_snapshots p JOIN grow_runs m ON m.old_run = p.run_id
      WHERE p.taken_at >= '${lo}' AND p.taken_at < '${hi}'`);
    // The roll-ups of the copied hours, shifted: what efa.rollup_snapshot would have summed from the copies.
    for (const table of ['efa.snapshot_hour_counts', 'efa.vehicle_hourly', 'efa.vehicle_hex_hourly_cells', 'efa.parking_hourly']) {
      const cols = await copiedColumns(tx, table);
      const exprs = cols.map((c) => (c === 'hour' ? `"hour" + interval '${shift}'` : c === 'name_at' ? `"name_at" + interval '${shift}'` : `"${c}"`));
      await run(`INSERT INTO ${table} (${quoted(cols)}) SELECT ${exprs.join(', ')} FROM ${table} WHERE hour >= '${lo}' AND hour < '${hi}'`);
    }
  });
}
