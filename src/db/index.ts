export { DatabaseRefusedError, dbUrlFrom, defaultDbUrl, redactUrl, type Db, type OpenDbOptions } from './connect.js';
export { openDb } from './open.js';
export { migrate, readMigrations, MigrationChecksumError, type MigrateResult } from './migrate.js';
export type { Database } from './tables.js';
