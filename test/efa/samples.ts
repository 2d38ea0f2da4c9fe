/**
 * Every real response body under /work/shared/efa-samples (see SOURCES.md), with what an id, a
 * name and a kind are in it, read straight off the JSON rather than through the parsers: the
 * reference the verbatim tests compare the records with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Operation } from '../../src/efa/operations.js';

export const SAMPLES_DIR = '/work/shared/efa-samples';

export type SampleDialect = 'legacy' | 'rapidjson';

/** One record of a sample as the server wrote it. */
export interface RawRecord {
  readonly raw: Record<string, unknown>;
  /** The id the record is stored under (the server's own field, or the one the dialect documents choosing). */
  readonly id: string | undefined;
  readonly name: string | undefined;
  /** The dialect's own word for the record's kind. */
  readonly kind: string | undefined;
}

export interface Sample {
  readonly file: string;
  readonly dialect: SampleDialect;
  readonly operation: Operation;
  /** The body as a server would answer (fragments wrapped in their envelope). */
  readonly body: unknown;
  /** The body with grid coordinates replaced by WGS84 ones, where the sample has grid coordinates. */
  readonly wgs84Body: unknown;
  /** Whether the original carries grid coordinates (no coordOutputFormat was sent for it). */
  readonly gridCoordinates: boolean;
  readonly records: readonly RawRecord[];
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);
const present = (value: unknown, absent: readonly string[] = ['']): string | undefined => {
  const t = text(value);
  return t === undefined || absent.includes(t.trim()) ? undefined : t;
};

function load(file: string): unknown {
  return JSON.parse(readFileSync(`${SAMPLES_DIR}/${file}`, 'utf8')) as unknown;
}

/** Every legacy `coords` text replaced by a WGS84 point inside Munich (the originals are MVTT/MRCV grid values). */
function withWgs84Coords(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => (key === 'coords' && typeof value === 'string' ? '11.60000,48.20000' : value)) as unknown;
}

const legacyGlobalId = (pin: Record<string, unknown>): string | undefined => {
  const attrs = Array.isArray(pin['attrs']) ? (pin['attrs'] as unknown[]) : [];
  const entry = attrs.map(asObject).find((a) => a['name'] === 'STOP_GLOBAL_ID');
  return present(entry?.['value']);
};

function describeSample(file: string): Sample | undefined {
  const raw = load(file);
  const body = asObject(raw);
  if (file.startsWith('rapidjson/coord-')) {
    const wrapped = file.includes('FRAGMENT') ? { version: '10.6.21.17', locations: [raw] } : raw;
    const list = (asObject(wrapped)['locations'] as unknown[]).map(asObject);
    const records = list.map((r) => ({ raw: r, id: present(r['id']), name: text(r['name']), kind: text(r['type']) }));
    return { file, dialect: 'rapidjson', operation: 'coordInfo', body: wrapped, wgs84Body: wrapped, gridCoordinates: false, records };
  }
  if (file.startsWith('rapidjson/stopfinder-')) {
    const records = (body['locations'] as unknown[]).map(asObject).map((r) => ({ raw: r, id: text(r['id']), name: text(r['name']), kind: text(r['type']) }));
    return { file, dialect: 'rapidjson', operation: 'stopFinder', body: raw, wgs84Body: raw, gridCoordinates: false, records };
  }
  if (file.startsWith('rapidjson/servinglines-')) {
    const records = (body['lines'] as unknown[]).map(asObject).map((r) => ({ raw: r, id: text(r['id']), name: text(r['name']), kind: undefined }));
    return { file, dialect: 'rapidjson', operation: 'servingLines', body: raw, wgs84Body: raw, gridCoordinates: false, records };
  }
  if (file.startsWith('rapidjson/addinfo-')) {
    const infos = asObject(body['infos']);
    const list = [...(infos['current'] as unknown[]), ...(infos['historic'] as unknown[])].map(asObject);
    const records = list.map((r) => ({ raw: r, id: text(r['id']), name: undefined, kind: text(r['type']) }));
    return { file, dialect: 'rapidjson', operation: 'addInfo', body: raw, wgs84Body: raw, gridCoordinates: false, records };
  }
  if (file.startsWith('legacy-json/coord-')) {
    // The dialect keys a legacy stop by its STOP_GLOBAL_ID (the id other dialects send), the local id in attrs.
    const records = (body['pins'] as unknown[]).map(asObject).map((r) => ({ raw: r, id: legacyGlobalId(r) ?? present(r['id']), name: text(r['desc']), kind: text(r['type']) }));
    return { file, dialect: 'legacy', operation: 'coordInfo', body: raw, wgs84Body: raw, gridCoordinates: false, records };
  }
  if (file.startsWith('legacy-json/stopfinder-')) {
    // The VOR files are single `stopFinder.points[]` entries: wrapped as the single-hit form.
    const wrapped = 'stopFinder' in body ? raw : { stopFinder: { points: { point: raw } } };
    const points = asObject(asObject(wrapped)['stopFinder'])['points'];
    const list = (Array.isArray(points) ? points : [asObject(points)['point']]).map(asObject);
    const records = list.map((r) => {
      const ref = asObject(r['ref']);
      return { raw: r, id: present(ref['gid']) ?? present(r['stateless']) ?? present(ref['id'], ['', '-1']), name: text(r['name']), kind: text(r['anyType']) };
    });
    return { file, dialect: 'legacy', operation: 'stopFinder', body: wrapped, wgs84Body: withWgs84Coords(wrapped), gridCoordinates: true, records };
  }
  if (file.startsWith('other/servinglines-in-dm-')) {
    const lines = asObject(body['servingLines'])['lines'] as unknown[];
    const records = lines.map(asObject).map((r) => {
      const mode = asObject(r['mode']);
      return { raw: r, id: undefined, name: text(mode['name']), kind: undefined };
    });
    return { file, dialect: 'legacy', operation: 'servingLines', body: raw, wgs84Body: raw, gridCoordinates: false, records };
  }
  return undefined;
}

/** Every JSON sample, each described; a new file in the folder that nobody described fails the tests. */
export function allSamples(): { samples: Sample[]; undescribed: string[] } {
  const files = ['legacy-json', 'rapidjson', 'other'].flatMap((dir) =>
    readdirSync(`${SAMPLES_DIR}/${dir}`).filter((f) => f.endsWith('.json')).map((f) => `${dir}/${f}`),
  );
  const samples: Sample[] = [];
  const undescribed: string[] = [];
  for (const file of files.sort()) {
    const sample = describeSample(file);
    if (sample === undefined) undescribed.push(file);
    else samples.push(sample);
  }
  return { samples, undescribed };
}
