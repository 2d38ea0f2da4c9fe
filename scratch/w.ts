import { openDb } from '../src/db/connect.js';
import { copyText } from '../src/db/copy.js';
import { createRun } from '../src/db/ledger.js';
import { mergeRows } from '../src/db/merge.js';
import { migrate } from '../src/db/migrate.js';
import { intArrayLiteral } from '../src/db/pg-array.js';
import { pins as E, toPinRow, type PinRow } from '../src/entities/index.js';
import { generateWorld } from '../src/sim/index.js';
import { createBatchingWriter } from '../src/sweep/context.js';
import { createScratchDb } from '../bench/util.js';
const N = 50000, B = 500;
const world = generateWorld({ seed: 3, size: N * 1.05, today: '2026-11-22' });
const seen = new Set<string>(); const rows: PinRow[] = [];
for (const p of world.allPins()) { const r = toPinRow({ type: p.type, ...(p.id !== undefined ? { id: p.id } : {}), name: p.name, coord: { lon: p.lon, lat: p.lat }, motTypes: [...(p.motTypes ?? [])], attrs: { ...p.attrs } }); if (seen.has(r.pin_key)) continue; seen.add(r.pin_key); rows.push(r); if (rows.length === N) break; }
rows.sort((a, b) => (a.lon - b.lon) || (a.lat - b.lat));
const url = process.env.PGL ? undefined : await createScratchDb('exp');
const db = await openDb(url?.url ?? 'pglite:memory');
await migrate(db);
const mk = (s: string) => createRun(db.kysely, { jobName: s, jobHash: 'b', scope: { source: s, region: '{}', regionMax: [0, 0] as const, relations: {} }, options: {} });
const cols = ['source', 'pin_key', 'type', 'id', 'name', 'mot_types', 'geom', 'global_id', 'attrs', 'content_hash', 'first_run', 'changed_run'];
const text = (rs: PinRow[], id: string) => copyText(rs, (r) => ['c', r.pin_key, r.type, r.id, r.name, intArrayLiteral(r.mot_types), `SRID=4326;POINT(${r.lon} ${r.lat})`, r.global_id, JSON.stringify(r.attrs), r.content_hash, id, id]);
for (let rep = 0; rep < 2; rep++) {
  for (const mode of ['copy', 'copy500', 'tile', 'writer']) {
    await db.exec(`DROP SCHEMA IF EXISTS b CASCADE; CREATE SCHEMA b; CREATE TABLE b.t (LIKE efa.pins INCLUDING ALL); ALTER TABLE b.t ADD FOREIGN KEY (first_run) REFERENCES efa.runs (run_id), ADD FOREIGN KEY (changed_run) REFERENCES efa.runs (run_id); TRUNCATE efa.pins CASCADE;`);
    const run = await mk('s' + mode + rep);
    const t0 = performance.now();
    if (mode === 'copy') await db.transaction((tx) => tx.copyIn('b.t', cols, text(rows, run.runId)));
    if (mode === 'copy500') for (let i = 0; i < N; i += B) await db.transaction((tx) => tx.copyIn('b.t', cols, text(rows.slice(i, i + B), run.runId)));
    if (mode === 'tile') for (let i = 0; i < N; i += B) await db.transaction((tx) => mergeRows(tx, E, run, rows.slice(i, i + B)));
    if (mode === 'writer') { const w = createBatchingWriter(db, run); const ps = []; for (let i = 0; i < N; i += B) { const p = rows.slice(i, i + B); ps.push(w((tx) => mergeRows(tx, E, run, p))); } await Promise.all(ps); }
    console.log(mode.padEnd(8), ((performance.now() - t0) / 1000).toFixed(2));
  }
}
await db.close(); await url?.drop();
