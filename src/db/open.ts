import { ConfigError } from '../errors.js';
import { redactUrl, type Db, type OpenDbOptions } from './connect.js';
import { openPglite } from './pglite.js';
import { seedFromTemplate } from './pglite-template.js';
import { openPostgres } from './postgres.js';

const isMemory = (location: string): boolean => location === 'memory' || location === 'memory:' || location === '';

/** Opens `postgres://…` / `postgresql://…` or `pglite:<dir>` (`pglite:memory` for a throwaway one). */
export async function openDb(url: string, options: OpenDbOptions = {}): Promise<Db> {
  if (url.startsWith('pglite:')) {
    const location = url.slice('pglite:'.length);
    // A new database starts as a copy of the migrated template (seconds instead of initdb + migrations).
    if (!isMemory(location)) await seedFromTemplate(location);
    return openPglite(location, options);
  }
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  throw new ConfigError(`--db: unsupported database URL "${redactUrl(url)}": use postgres://… or pglite:<dir>`, 'db');
}
