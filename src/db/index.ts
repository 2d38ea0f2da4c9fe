export { DatabaseRefusedError, dbUrlChoice, dbUrlFrom, defaultDbUrl, PG_ENV_VARS, pgEnvUrl, redactUrl, type Db, type DbUrlSource, type OpenDbOptions } from './connect.js';
export { openDb } from './open.js';
export { migrate, readMigrations, MigrationChecksumError, type MigrateResult } from './migrate.js';
export type { Database } from './tables.js';
