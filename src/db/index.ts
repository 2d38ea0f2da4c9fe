export { DatabaseRefusedError, dbUrlFrom, defaultDbUrl, openDb, redactUrl, type Db, type OpenDbOptions } from './connect.js';
export { migrate, readMigrations, MigrationChecksumError, type MigrateResult } from './migrate.js';
export type { Database } from './tables.js';
