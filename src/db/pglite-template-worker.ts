import { workerData } from 'node:worker_threads';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';

/**
 * Builds the migrated template (pglite-template.ts) on a thread of its own: initdb, CREATE
 * EXTENSION postgis and the migrations take ~0.5 GB of WebAssembly memory, which the thread's end
 * gives back at once. Built on the command's own thread, that memory stayed until a garbage
 * collection while the command's database opened beside it: a first new database on a machine
 * peaked at 906-956 MB (`efa-sync migrate`), a first night of 200,000 pins at 990 MB.
 */
const { dir } = workerData as { dir: string };
const db = await openPglite(dir);
try {
  await migrate(db);
} finally {
  await db.close();
}
