export { dbUrlFrom, defaultDbUrl, openDb, redactUrl, type Db } from './connect.js';
export { migrate, readMigrations, MigrationChecksumError, type MigrateResult } from './migrate.js';
export type { Database } from './tables.js';
