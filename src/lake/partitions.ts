import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { LakeRelation } from './relations.js';

/** One (relation, source, day) the warehouse has rows or snapshots for. */
export interface Candidate {
  readonly source: string;
  readonly day: string;
  /** Whether the day is over for that source: see `listCandidates`. */
  readonly complete: boolean;
}

export interface CandidateFilter {
  readonly source?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  /** The export's "now" (default: the database's): its UTC day and later are never complete. */
  readonly now?: Date | undefined;
}

/**
 * The partitions of one relation there are, oldest first, each marked complete or not. A day is
 * complete for a source when it is before today (UTC) and no run of that source still running
 * started on or before it: a snapshot or a night that began before midnight may still commit rows
 * (or versions) into the day. A run that died stays `running` until the next run of its job resumes
 * or closes it, and holds its source's days back until then.
 *
 * A series is listed from efa.snapshots (one row per snapshot, indexed by source, kind and time),
 * never from the series itself; a history table from an index on (source, upper(valid)).
 */
export async function listCandidates(db: Db, rel: LakeRelation, f: CandidateFilter): Promise<Candidate[]> {
  const src = f.source ?? null;
  const since = f.since ?? null;
  const until = f.until ?? null;
  const days = rel.snapshotKind
    ? await sql<{ source: string; day: string }>`
        SELECT t.source, to_char((t.taken_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day
        FROM efa.snapshots t
        WHERE t.kind = ${rel.snapshotKind} AND (${src}::text IS NULL OR t.source = ${src}::text)
          AND (${since}::date IS NULL OR t.taken_at >= (${since}::date)::timestamp AT TIME ZONE 'UTC')
          AND (${until}::date IS NULL OR t.taken_at < (${until}::date + 1)::timestamp AT TIME ZONE 'UTC')
        GROUP BY 1, 2 ORDER BY 2, 1`.execute(db.kysely)
    : await sql<{ source: string; day: string }>`
        SELECT t.source, to_char((${sql.raw(rel.timeSql)} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day
        FROM ${sql.raw(`efa.${rel.name}`)} t
        WHERE ${sql.raw(rel.timeSql)} IS NOT NULL AND (${src}::text IS NULL OR t.source = ${src}::text)
          AND (${since}::date IS NULL OR ${sql.raw(rel.timeSql)} >= (${since}::date)::timestamp AT TIME ZONE 'UTC')
          AND (${until}::date IS NULL OR ${sql.raw(rel.timeSql)} < (${until}::date + 1)::timestamp AT TIME ZONE 'UTC')
        GROUP BY 1, 2 ORDER BY 2, 1`.execute(db.kysely);
  const bounds = await sql<{ today: string; source: string | null; held_from: string | null }>`
    SELECT to_char((coalesce(${f.now ?? null}::timestamptz, now()) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today,
           r.source, to_char((min(r.started_at) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS held_from
    FROM (SELECT 1) one
    LEFT JOIN efa.runs r ON r.status = 'running'
    GROUP BY r.source`.execute(db.kysely);
  const today = bounds.rows[0]?.today ?? '0000-00-00';
  const heldFrom = new Map<string, string>();
  for (const b of bounds.rows) if (b.source !== null && b.held_from !== null) heldFrom.set(b.source, b.held_from);
  return days.rows.map((d) => {
    const held = heldFrom.get(d.source);
    return { source: d.source, day: d.day, complete: d.day < today && (held === undefined || d.day < held) };
  });
}

/** The newest migration applied: the schema version every file records. */
export async function schemaVersion(db: Db): Promise<number> {
  const r = await sql<{ v: number | null }>`SELECT max(version)::int AS v FROM efa.schema_migrations`.execute(db.kysely);
  return r.rows[0]?.v ?? 0;
}
