/**
 * What the loader benches share (bench/loader.ts, bench/writer-pace.ts): distinct pins of a generated
 * world in tile order, the baseline COPY text of their rows, and the databases they load into.
 */
import { openDb } from '../src/db/open.js';
import type { Db } from '../src/db/connect.js';
import { copyText } from '../src/db/copy.js';
import { intArrayLiteral } from '../src/db/pg-array.js';
import type { Pin } from '../src/efa/records.js';
import { pinKey, type PinRow } from '../src/relations/index.js';
import { generateWorld } from '../src/sim/index.js';
import type { Pin as SimPin } from '../src/sim/types.js';
import { createScratchDb } from './util.js';

/** Where the bench loads: a migrated database (COPY goes through Db.transaction's copyIn, as the loader's). */
export interface Target {
  readonly label: string;
  readonly db: Db;
  dispose(): Promise<void>;
}

/** A sim pin as a dialect parser would hand it over. */
function asEfaPin(p: SimPin): Pin {
  return {
    type: p.type,
    ...(p.id !== undefined ? { id: p.id } : {}),
    name: p.name,
    coord: { lon: p.lon, lat: p.lat },
    motTypes: [...(p.motTypes ?? [])],
    attrs: { ...p.attrs },
  };
}

/** 16-bit Z-order of a position inside the world box: sorting by it makes batches tile-like (spatially compact). */
function zOrder(lon: number, lat: number, box: readonly [number, number, number, number]): number {
  const x = Math.min(65535, Math.max(0, Math.floor(((lon - box[0]) / (box[2] - box[0])) * 65536)));
  const y = Math.min(65535, Math.max(0, Math.floor(((lat - box[1]) / (box[3] - box[1])) * 65536)));
  let z = 0;
  for (let b = 15; b >= 0; b--) z = z * 4 + (((x >> b) & 1) << 1) + ((y >> b) & 1);
  return z;
}

/** N distinct pins of a generated world, in tile order. */
export function benchPins(n: number): Pin[] {
  const world = generateWorld({ seed: 3, size: n + Math.ceil(n / 50), today: '2026-11-22' });
  const box = world.bbox;
  const seen = new Set<string>();
  const out: { pin: Pin; z: number }[] = [];
  for (const p of world.allPins()) {
    const pin = asEfaPin(p);
    const key = pinKey(pin);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pin, z: zOrder(p.lon, p.lat, box) });
    if (out.length === n) break;
  }
  return out.sort((a, b) => a.z - b.z).map((o) => o.pin);
}

export const copyColumns = ['source', 'pin_key', 'type', 'id', 'name', 'mot_types', 'geom', 'global_id', 'attrs', 'content_hash', 'first_run', 'changed_run'] as const;

/** The rows as COPY text: the same serialisation work the loader does (arrays, JSON). */
export function baselineText(rows: readonly PinRow[], runId: string): Generator<string> {
  return copyText(rows, (r) => [
    'bench', r.pin_key, r.type, r.id, r.name, intArrayLiteral(r.mot_types), `SRID=4326;POINT(${r.lon} ${r.lat})`, r.global_id,
    JSON.stringify(r.attrs), r.content_hash, runId, runId,
  ]);
}

export async function postgresTarget(): Promise<Target> {
  const scratch = await createScratchDb('efa_bench_loader');
  const db = await openDb(scratch.url);
  return {
    label: 'PostgreSQL',
    db,
    dispose: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}

export async function pgliteTarget(): Promise<Target> {
  const db = await openDb('pglite:memory');
  return { label: 'PGlite', db, dispose: () => db.close() };
}
