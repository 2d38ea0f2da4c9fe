import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, errorText } from '../errors.js';

/** The layout of the lake itself (folders, manifest fields); bumped when a reader must change. */
export const LAKE_VERSION = 1;
export const MANIFEST_NAME = '_manifest.json';

/** One Parquet file of the lake, as the manifest describes it. */
export interface LakeFile {
  /** Relative to the lake, with `/`: `vehicle_snapshots/source=vvs/day=2026-11-20/part-0.parquet`. */
  readonly path: string;
  readonly relation: string;
  readonly source: string;
  readonly day: string;
  readonly rows: number;
  /** The first and last partition time in the file (taken_at, or a version's end), ISO 8601 UTC. */
  readonly min_time: string | null;
  readonly max_time: string | null;
  /** [minX, minY, maxX, maxY] of the geometries in the file (EPSG:4326), null without geometry. */
  readonly bbox: readonly [number, number, number, number] | null;
  readonly bytes: number;
  readonly sha256: string;
  readonly written_at: string;
  /** The warehouse's schema version (the newest migration applied) the file was written from. */
  readonly schema_version: number;
}

/** One partition (relation, source, day): complete once listed here; a day without rows has no files. */
export interface LakePartition {
  readonly relation: string;
  readonly source: string;
  readonly day: string;
  readonly rows: number;
  readonly files: number;
  readonly written_at: string;
}

export interface LakeManifest {
  readonly lake_version: number;
  updated_at: string;
  partitions: LakePartition[];
  files: LakeFile[];
}

export const partitionKey = (p: { relation: string; source: string; day: string }): string => `${p.relation}\u0000${p.source}\u0000${p.day}`;

/** The manifest of the lake at `dir`, or an empty one when there is none yet. */
export async function readManifest(dir: string): Promise<LakeManifest> {
  const path = join(dir, MANIFEST_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lake_version: LAKE_VERSION, updated_at: new Date().toISOString(), partitions: [], files: [] };
    throw new ConfigError(`--lake: cannot read ${path}: ${errorText(error)}`, 'lake');
  }
  // The file is on disk where anyone may have edited it: checked before it decides what is skipped.
  const bad = (why: string): ConfigError =>
    new ConfigError(`--lake: ${path} is not an efa-sync lake manifest (${why}); move it away (the next export rewrites every day) or point --lake at another folder`, 'lake');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw bad(errorText(error));
  }
  if (typeof parsed !== 'object' || parsed === null) throw bad('not an object');
  const m = parsed as Partial<LakeManifest>;
  if (m.lake_version !== LAKE_VERSION) throw bad(`lake_version ${String(m.lake_version)}, this efa-sync writes ${LAKE_VERSION}`);
  if (!Array.isArray(m.partitions) || !Array.isArray(m.files)) throw bad('partitions and files must be arrays');
  const str = (v: unknown): boolean => typeof v === 'string';
  for (const p of m.partitions as unknown[]) {
    const q = p as Partial<LakePartition>;
    if (!str(q.relation) || !str(q.source) || !str(q.day) || typeof q.files !== 'number') throw bad('a partition without relation, source, day or files');
  }
  for (const f of m.files as unknown[]) {
    const q = f as Partial<LakeFile>;
    if (!str(q.path) || !str(q.relation) || !str(q.source) || !str(q.day) || q.path?.split('/').includes('..')) throw bad('a file without path, relation, source or day');
  }
  return { lake_version: LAKE_VERSION, updated_at: String(m.updated_at ?? ''), partitions: m.partitions, files: m.files };
}

/** Replaces the manifest atomically: a reader sees the old one or the new one, never half of one. */
export async function writeManifest(dir: string, manifest: LakeManifest): Promise<void> {
  manifest.updated_at = new Date().toISOString();
  const path = join(dir, MANIFEST_NAME);
  const tmp = join(dir, `.${MANIFEST_NAME}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, `${JSON.stringify(manifest, null, 1)}\n`);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
