import { ConfigError } from '../errors.js';
import { redactUrl, type Db, type OpenDbOptions } from './connect.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

/** Opens `postgres://…` / `postgresql://…` or `pglite:<dir>` (`pglite:memory` for a throwaway one). */
export async function openDb(url: string, options: OpenDbOptions = {}): Promise<Db> {
  if (url.startsWith('pglite:')) return openPglite(url.slice('pglite:'.length), options);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  throw new ConfigError(`--db: unsupported database URL "${redactUrl(url)}": use postgres://… or pglite:<dir>`, 'db');
}
