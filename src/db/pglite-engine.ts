import type { Extensions } from '@electric-sql/pglite';
import { escapedExceptionsAsErrors } from './pglite-errors.js';
import { postgisForPglite } from './pglite-postgis.js';

/**
 * PostgreSQL's settings for every embedded database, after PGlite's own start parameters.
 * shared_buffers: initdb's 128 MB (the data directory's postgresql.conf) is zeroed at every start,
 * since Emscripten maps memory with a memset: 0.3 s and ~100 MB of every process (open 0.86 -> 0.54 s,
 * RSS 290 -> 187 MB without PostGIS, 2 cores). What leaves the buffer pool is still in the operating
 * system's page cache, a read call away (the file system is the host's).
 */
const PGLITE_SETTINGS: readonly string[] = ['-c', 'shared_buffers=32MB'];

/**
 * What every embedded database is created with (the CLI's, serve's engine, the tests' templates):
 * PostGIS unless `geometry` is false, PostGIS's C++ errors raised as errors (pglite-errors.ts), and
 * PGlite's start parameters with efa-sync's settings.
 */
export async function pgliteEngine(geometry = true): Promise<{ extensions: Extensions; startParams: string[] }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const errors = { escapedExceptions: escapedExceptionsAsErrors };
  return { extensions: geometry ? { postgis: await postgisForPglite(), ...errors } : errors, startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] };
}
