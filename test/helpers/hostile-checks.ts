import { Writable } from 'node:stream';
import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { createLogger, type Logger } from '../../src/util/log.js';
import type { WirePin } from './hostile-upstream.js';

/** Live and gone pin rows of one source. */
export async function pinCounts(db: Db, source: string): Promise<{ live: number; gone: number }> {
  const r = await sql<{ live: number; gone: number }>`
    SELECT count(*) FILTER (WHERE deleted_at IS NULL)::int AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS gone
    FROM efa.pins WHERE source = ${source}`.execute(db.kysely);
  return r.rows[0] ?? { live: 0, gone: 0 };
}

/** Ids of the source's pins marked gone that the upstream still has. */
export async function goneButStillThere(db: Db, source: string, upstreamIds: readonly string[]): Promise<string[]> {
  const r = await sql<{ id: string }>`SELECT id FROM efa.pins WHERE source = ${source} AND deleted_at IS NOT NULL`.execute(db.kysely);
  const there = new Set(upstreamIds);
  return r.rows.map((row) => row.id).filter((id) => there.has(id));
}

/**
 * The wire records (by id) the upstream sent that are neither a row of efa.pins of the source nor
 * inside any reject of the source: received and lost. Records without a text id are identified by
 * their JSON text instead.
 */
export async function receivedButMissing(db: Db, source: string, sent: readonly WirePin[]): Promise<string[]> {
  const ids = await sql<{ id: string }>`SELECT id FROM efa.pins WHERE source = ${source} AND id IS NOT NULL`.execute(db.kysely);
  const rejects = await sql<{ raw: string }>`SELECT raw::text AS raw FROM efa.rejects WHERE source = ${source}`.execute(db.kysely);
  const stored = new Set(ids.rows.map((r) => r.id));
  const rejected = rejects.rows.map((r) => r.raw);
  const missing = new Set<string>();
  for (const record of sent) {
    const key = typeof record['id'] === 'string' ? record['id'] : JSON.stringify(record);
    if (stored.has(key) || missing.has(key)) continue;
    // The id as it appears inside the stored JSON text (quotes and backslashes escaped).
    const needle = JSON.stringify(key).slice(1, -1);
    if (!rejected.some((raw) => raw.includes(needle))) missing.add(key.length > 60 ? `${key.slice(0, 60)}… (${key.length} chars)` : key);
  }
  return [...missing];
}

/** efa.changes rows of the given runs by op (insert/update/delete). */
export async function changesOf(db: Db, runIds: readonly string[]): Promise<Record<string, number>> {
  if (runIds.length === 0) return {};
  const r = await sql<{ op: string; n: number }>`
    SELECT op, count(*)::int AS n FROM efa.changes WHERE run_id IN (${sql.join(runIds.map((id) => sql`${id}::bigint`))}) GROUP BY op`.execute(db.kysely);
  return Object.fromEntries(r.rows.map((row) => [row.op, row.n]));
}

/**
 * The resident set's peak growth over a stretch of work, sampled every 10 ms (the tests and the
 * run share the process, so the run's allocations show up here).
 */
export function watchMemory(): { stop(): { peakGrowthMiB: number } } {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      return { peakGrowthMiB: Math.round((peak - baseline) / 1024 / 1024) };
    },
  };
}

/** A logger whose lines (json, warn and above) the test can read. */
export function capturingLogger(): { log: Logger; lines: string[]; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const log = createLogger({ level: 'warn', format: 'json', stream });
  return { log, lines, text: () => lines.map((l) => (JSON.parse(l) as { msg: string }).msg).join('\n') };
}
