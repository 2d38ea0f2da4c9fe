import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { Tx } from '../db/connect.js';
import type { ExportRow } from '../export/relation.js';
import type { ExportWriter } from '../export/writer.js';
import { failpoint } from '../util/failpoint.js';
import type { LakeColumns } from './columns.js';
import { toLakeRow } from './columns.js';
import type { LakeFile } from './manifest.js';
import { nextDay, type LakeRelation } from './relations.js';

/** Where partitions are built before they appear: inside the lake (one file system), outside every relation's folder. */
export const LAKE_TMP = '_tmp';

/**
 * A Hive partition value: the source as it is when it is a plain name (the job schema allows
 * letters, digits, `_`, `.`, `-`), else percent-encoded as Hive escapes (`/`, `=`, `%`, a leading dot),
 * so a hostile value stored in the warehouse can never name another folder.
 */
export function hiveValue(value: string): string {
  return [...value].map((ch, i) => (/[A-Za-z0-9_-]/.test(ch) || (ch === '.' && i > 0) ? ch : [...Buffer.from(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''))).join('');
}

/** The folder of a partition, relative to the lake, with `/`. */
export const partitionPath = (relation: string, source: string, day: string): string => `${relation}/source=${hiveValue(source)}/day=${day}`;

export interface PartitionJob {
  readonly lake: string;
  readonly relation: LakeRelation;
  readonly columns: LakeColumns;
  readonly source: string;
  readonly day: string;
  readonly batchSize: number;
  readonly maxRowsPerFile: number;
  readonly schemaVersion: number;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** One Parquet file being filled, with what the manifest will say of it. */
class PartFile {
  rows = 0;
  minTime: string | null = null;
  maxTime: string | null = null;
  readonly bbox = [Infinity, Infinity, -Infinity, -Infinity];
  private constructor(
    readonly name: string,
    readonly writer: ExportWriter,
  ) {}
  static async open(dir: string, n: number, job: PartitionJob): Promise<PartFile> {
    const name = `part-${n}.parquet`;
    // Loaded when a part is written, as export's writers are (src/export/index.ts): the CLI starts without hyparquet.
    const { parquet } = await import('../export/parquet.js');
    const writer = await parquet.open({ kind: 'path', path: join(dir, name) }, [job.columns.rel], {});
    // One layer, its row count unknown ahead (rows come through a cursor): begin takes what it is told.
    await writer.layers[0]?.begin(0);
    return new PartFile(name, writer);
  }
  async write(rows: readonly ExportRow[], times: readonly (string | null)[]): Promise<void> {
    for (const t of times) {
      if (t === null) continue;
      if (this.minTime === null || t < this.minTime) this.minTime = t;
      if (this.maxTime === null || t > this.maxTime) this.maxTime = t;
    }
    for (const r of rows) {
      if (!r.bbox) continue;
      this.bbox[0] = Math.min(this.bbox[0]!, r.bbox[0]);
      this.bbox[1] = Math.min(this.bbox[1]!, r.bbox[1]);
      this.bbox[2] = Math.max(this.bbox[2]!, r.bbox[2]);
      this.bbox[3] = Math.max(this.bbox[3]!, r.bbox[3]);
    }
    this.rows += rows.length;
    await this.writer.layers[0]?.write(rows);
  }
}

/**
 * Writes one partition: every row of the relation for the source and UTC day, fetched through a
 * cursor `batchSize` rows at a time (one row group each) in one read-only REPEATABLE READ
 * transaction, into a fresh folder under `_tmp/`; that folder is renamed to the partition's place
 * only when every file is finished. A crash leaves a stray folder under `_tmp/` (the next export
 * removes it) and never a partition with half its files. Returns the files, for the manifest.
 */
export async function writePartition(db: Db, job: PartitionJob): Promise<LakeFile[]> {
  const rel = job.columns.rel;
  // The day goes into the SQL as a literal (below): it must be nothing but a day.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(job.day)) throw new Error(`lake: partition day "${job.day}" is not YYYY-MM-DD`);
  const building = join(job.lake, LAKE_TMP, `${job.relation.name}.${hiveValue(job.source)}.${job.day}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await mkdir(building, { recursive: true });
  const done: PartFile[] = [];
  let current: PartFile | undefined;
  try {
    await db.transaction(async (tx: Tx) => {
      await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`.execute(tx.kysely);
      const from = `'${job.day}'::timestamp AT TIME ZONE 'UTC'`;
      const to = `'${nextDay(job.day)}'::timestamp AT TIME ZONE 'UTC'`;
      // The day is a literal checked as YYYY-MM-DD, the source a parameter: the time bounds must be
      // literals for PostgreSQL to prune the day's partition at plan time.
      await sql`DECLARE efa_lake NO SCROLL CURSOR FOR
        SELECT ${sql.raw(job.columns.selectList)} FROM ${sql.raw(`efa.${job.relation.name}`)} t
        WHERE t.source = ${job.source} AND ${sql.raw(job.relation.timeSql)} >= ${sql.raw(from)} AND ${sql.raw(job.relation.timeSql)} < ${sql.raw(to)}
        ORDER BY ${sql.raw(job.relation.orderSql)}`.execute(tx.kysely);
      for (;;) {
        const fetched = await sql.raw<Record<string, unknown>>(`FETCH FORWARD ${job.batchSize} FROM efa_lake`).execute(tx.kysely);
        if (fetched.rows.length === 0) break;
        let rows = fetched.rows.map((r) => toLakeRow(rel, r));
        while (rows.length > 0) {
          current ??= await PartFile.open(building, done.length, job);
          const room = job.maxRowsPerFile - current.rows;
          const take = rows.slice(0, room);
          await current.write(take.map((r) => r.row), take.map((r) => r.time));
          rows = rows.slice(take.length);
          if (current.rows >= job.maxRowsPerFile) {
            await current.writer.finish();
            done.push(current);
            current = undefined;
          }
        }
        failpoint('lake-batch');
        if (fetched.rows.length < job.batchSize) break;
      }
      await sql`CLOSE efa_lake`.execute(tx.kysely);
    });
    if (current) {
      await current.writer.finish();
      done.push(current);
      current = undefined;
    }
    const files: LakeFile[] = [];
    const where = partitionPath(job.relation.name, job.source, job.day);
    const writtenAt = new Date().toISOString();
    for (const f of done) {
      const path = join(building, f.name);
      files.push({
        path: `${where}/${f.name}`,
        relation: job.relation.name,
        source: job.source,
        day: job.day,
        rows: f.rows,
        min_time: f.minTime,
        max_time: f.maxTime,
        bbox: Number.isFinite(f.bbox[0]) ? [f.bbox[0]!, f.bbox[1]!, f.bbox[2]!, f.bbox[3]!] : null,
        bytes: (await stat(path)).size,
        sha256: await sha256Of(path),
        written_at: writtenAt,
        schema_version: job.schemaVersion,
      });
    }
    failpoint('lake-partition-built');
    if (files.length > 0) await movePartitionInPlace(job.lake, building, where);
    else await rm(building, { recursive: true, force: true });
    return files;
  } catch (error) {
    await current?.writer.abort();
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Renames the built folder to the partition's place. A folder already there is one a crash left
 * between its rename and the manifest's record (or one put there by hand): the manifest does not
 * vouch for it, so it is moved aside and removed, never merged with.
 */
async function movePartitionInPlace(lake: string, building: string, where: string): Promise<void> {
  const target = join(lake, ...where.split('/'));
  await mkdir(join(target, '..'), { recursive: true });
  const stale = await stat(target).catch(() => undefined);
  if (stale) {
    const aside = `${building}.replaced`;
    await rename(target, aside);
    await rename(building, target);
    await rm(aside, { recursive: true, force: true });
    return;
  }
  await rename(building, target);
}
