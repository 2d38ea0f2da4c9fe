import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Db } from '../db/index.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/log.js';
import { lakeColumns } from './columns.js';
import { partitionKey, readManifest, writeManifest, type LakeFile, type LakeManifest } from './manifest.js';
import { LAKE_TMP, partitionPath, writePartition } from './partition.js';
import { listCandidates, schemaVersion } from './partitions.js';
import type { LakeRelation } from './relations.js';
import { lockLake, type LakeLock } from './lock.js';

export { LAKE_RELATIONS, lakeRelationsOf, parseDay } from './relations.js';
export { LAKE_LOCK, type LakeLock } from './lock.js';
export { MANIFEST_NAME, readManifest, type LakeFile, type LakeManifest, type LakePartition } from './manifest.js';

export interface LakeOptions {
  /** The lake's folder (created when missing). */
  readonly dir: string;
  readonly relations: readonly LakeRelation[];
  readonly source?: string | undefined;
  /** First and last UTC day to consider (YYYY-MM-DD, inclusive). */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  /** The export's "now": its UTC day and later are not complete yet (default: the database's now). */
  readonly now?: Date | undefined;
  /** Rows per fetch and per row group: what is held in memory at once (default 20,000). */
  readonly batchSize?: number | undefined;
  /** Rows per Parquet file before a partition gets another part (default 1,000,000). */
  readonly maxRowsPerFile?: number | undefined;
  /** The caller already holds the folder's lock (openLake); else exportLake takes it for its own length. */
  readonly locked?: boolean | undefined;
}

export interface LakeSummary {
  readonly dir: string;
  /** Partitions written now, and the rows and bytes of their files. */
  readonly written: number;
  readonly rows: number;
  readonly bytes: number;
  /** Partitions the manifest already holds: not rewritten. */
  readonly kept: number;
  /** Partitions whose day is not over (today, or a run of the source still running): left for a later export. */
  readonly pending: number;
  readonly durationS: number;
}

/** The manifest is rewritten after a partition at most this often (and at the end): a crash costs at most this much rework. */
const MANIFEST_EVERY_MS = 2_000;

/**
 * Writes every complete (relation, source, day) partition the lake does not hold yet, one at a
 * time, and records each in the manifest. A partition the manifest lists is never rewritten while
 * its files are there; one whose files are gone (removed by hand to have it rewritten) is written again.
 */
export async function exportLake(db: Db, opts: LakeOptions, log: Logger): Promise<LakeSummary> {
  if (opts.locked === true) return exportLocked(db, opts, log);
  const lock = await openLake(opts.dir);
  try {
    return await exportLocked(db, opts, log);
  } finally {
    await lock.release();
  }
}

/**
 * The lake's folder, created when missing, with its one-writer lock taken (lock.ts): a second export
 * into it meanwhile exits 4 naming this one. A folder that is a file is a ConfigError.
 */
export async function openLake(lakeDir: string): Promise<LakeLock> {
  const dir = resolve(lakeDir);
  const existing = await stat(dir).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw new ConfigError(`--lake: ${dir} is a file; give a folder (created when missing)`, 'lake');
  await mkdir(dir, { recursive: true });
  return lockLake(dir);
}

async function exportLocked(db: Db, opts: LakeOptions, log: Logger): Promise<LakeSummary> {
  const started = performance.now();
  const dir = resolve(opts.dir);
  const manifest = await readManifest(dir);
  // What a crashed export was building: never a partition, always safe to drop.
  await rm(join(dir, LAKE_TMP), { recursive: true, force: true });
  const recorded = new Set(manifest.partitions.map((p) => partitionKey(p)));
  const filesOf = new Map<string, LakeFile[]>();
  for (const f of manifest.files) {
    const list = filesOf.get(partitionKey(f));
    if (list) list.push(f);
    else filesOf.set(partitionKey(f), [f]);
  }
  const version = await schemaVersion(db);
  let written = 0, rows = 0, bytes = 0, kept = 0, pending = 0;
  let flushedAt = performance.now();
  let dirty = false;
  for (const relation of opts.relations) {
    const candidates = await listCandidates(db, relation, opts);
    const columns = candidates.length > 0 ? await lakeColumns(db, relation) : undefined;
    for (const c of candidates) {
      const key = partitionKey({ relation: relation.name, source: c.source, day: c.day });
      if (recorded.has(key) && (await filesPresent(dir, filesOf.get(key) ?? []))) {
        kept += 1;
        continue;
      }
      if (!c.complete) {
        pending += 1;
        log.debug(`lake: ${partitionPath(relation.name, c.source, c.day)} is not complete yet (today, or a run of ${c.source} still running): left for a later export`);
        continue;
      }
      const files = await writePartition(db, {
        lake: dir,
        relation,
        columns: columns!,
        source: c.source,
        day: c.day,
        batchSize: opts.batchSize ?? 20_000,
        maxRowsPerFile: opts.maxRowsPerFile ?? 1_000_000,
        schemaVersion: version,
      });
      const partRows = files.reduce((n, f) => n + f.rows, 0);
      const partBytes = files.reduce((n, f) => n + f.bytes, 0);
      record(manifest, key, { relation: relation.name, source: c.source, day: c.day, rows: partRows, files: files.length, written_at: new Date().toISOString() }, files, recorded.has(key));
      recorded.add(key);
      filesOf.set(key, files);
      written += 1;
      rows += partRows;
      bytes += partBytes;
      dirty = true;
      log.info(`lake: wrote ${partitionPath(relation.name, c.source, c.day)}: ${partRows} rows in ${files.length} file(s), ${Math.ceil(partBytes / 1024)} KiB`);
      if (performance.now() - flushedAt >= MANIFEST_EVERY_MS) {
        await writeManifest(dir, manifest);
        flushedAt = performance.now();
        dirty = false;
      }
    }
  }
  if (dirty) await writeManifest(dir, manifest);
  // Each partition's build folder was renamed away; what is left is the empty folder that held them.
  await rm(join(dir, LAKE_TMP), { recursive: true, force: true });
  return { dir, written, rows, bytes, kept, pending, durationS: Math.round((performance.now() - started) / 100) / 10 };
}

/** Replaces what the manifest says of one partition (rare: only a partition whose files went missing was there before). */
function record(manifest: LakeManifest, key: string, partition: LakeManifest['partitions'][number], files: LakeManifest['files'], had: boolean): void {
  if (had) {
    manifest.partitions = manifest.partitions.filter((p) => partitionKey(p) !== key);
    manifest.files = manifest.files.filter((f) => partitionKey(f) !== key);
  }
  manifest.partitions.push(partition);
  manifest.files.push(...files);
}

/** Whether every file the manifest lists for the partition is on disk with its recorded size. */
async function filesPresent(dir: string, files: readonly LakeFile[]): Promise<boolean> {
  for (const f of files) {
    const s = await stat(join(dir, ...f.path.split('/'))).catch(() => undefined);
    if (!s || s.size !== f.bytes) return false;
  }
  return true;
}
