import type { Command } from 'commander';
import { addDbOption, addOutputOptions, loggerFor, type CommonOptions } from './common.js';
import { whenDatabaseLost } from './database.js';
import { dbUrlFrom, migrate, openDb } from '../db/index.js';

export function registerMigrate(program: Command): void {
  const cmd = program.command('migrate').description('create or upgrade the schema (run implicitly by `run`)');
  addOutputOptions(addDbOption(cmd)).action(async (opts: CommonOptions) => {
    const log = loggerFor(opts);
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      const result = await whenDatabaseLost(db, undefined, () => migrate(db));
      const summary = { db: db.displayUrl, applied: result.applied, schemaVersion: result.current };
      if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else
        log.info(
          result.applied.length > 0
            ? `migrated ${db.displayUrl}: applied ${result.applied.join(', ')}, schema version ${result.current}`
            : `${db.displayUrl} is up to date (schema version ${result.current})`,
        );
    } finally {
      await db.close();
    }
  });
}
