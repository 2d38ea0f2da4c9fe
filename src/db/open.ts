import { ConfigError } from '../errors.js';
import { redactUrl, type Db, type OpenDbOptions } from './connect.js';
import { openPglite } from './pglite.js';
import { seedFromTemplate } from './pglite-template.js';
import { openPostgres } from './postgres.js';

/** Opens `postgres://…` / `postgresql://…` or `pglite:<dir>` (`pglite:memory` for a throwaway one). */
export async function openDb(url: string, options: OpenDbOptions = {}): Promise<Db> {
  if (url.startsWith('pglite:')) {
    // A new database starts as a copy of the migrated template (seconds instead of initdb + migrations),
    // made under the directory's lock: a directory another process holds is never written to.
    return openPglite(url.slice('pglite:'.length), options, (dataDir) => seedFromTemplate(dataDir));
  }
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  throw new ConfigError(`--db: unsupported database URL "${redactUrl(url)}": use postgres://… or pglite:<dir>`, 'db');
}
