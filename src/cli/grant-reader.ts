import type { Command } from 'commander';
import { dbUrlFrom, openDb } from '../db/index.js';
import { grantReader, validateRoleName } from '../db/grant.js';
import { ConfigError } from '../errors.js';
import { addDbOption, addOutputOptions, loggerFor, type CommonOptions } from './common.js';

interface GrantReaderCliOptions extends CommonOptions {
  login?: boolean;
  revokePublic?: boolean;
}

/**
 * `efa-sync grant-reader <role>`: a read-only role for analysts on schema efa. It does not migrate:
 * objects it created would belong to whoever runs it (often an administrator), not to the ETL role.
 */
export function registerGrantReader(program: Command): void {
  const cmd = program
    .command('grant-reader <role>')
    .description('create or update a read-only role for analysts: USAGE on schema efa, SELECT on its tables and views, now and later')
    .option('--login', 'let the role log in, with the password taken from $EFA_READER_PASSWORD (never from an argument)')
    .option('--revoke-public', "revoke from PUBLIC, database-wide, PostgreSQL's defaults a reader does not need (temporary objects, DO blocks, large objects, pg_notify, CREATE in schema public); the ETL roles keep what their runs use");
  addOutputOptions(addDbOption(cmd)).action(async (role: string, opts: GrantReaderCliOptions) => {
    const log = loggerFor(opts);
    validateRoleName(role);
    const password = opts.login ? process.env['EFA_READER_PASSWORD'] : undefined;
    if (opts.login && !password) {
      throw new ConfigError('--login: set the password in $EFA_READER_PASSWORD (it is never taken from an argument or a file)', 'EFA_READER_PASSWORD');
    }
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      if (db.kind === 'pglite') log.warn('PGlite has a single user: the role takes effect only where this data is served by a PostgreSQL server');
      const result = await grantReader(db, role, { login: opts.login === true, password, revokePublic: opts.revokePublic === true });
      const summary = { db: db.displayUrl, ...result };
      if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else {
        log.info(
          `${result.created ? 'created' : 'updated'} role ${result.role} (${result.login ? 'LOGIN, password set' : result.created ? 'NOLOGIN' : 'login unchanged'}): ` +
            `USAGE on schema efa, SELECT on all its tables and views, and on future tables created by ${result.defaultsFor.join(', ')}`,
        );
        if (result.publicRevoked.length > 0) log.info(`revoked from PUBLIC: ${result.publicRevoked.join('; ')}`);
        if (result.publicOpen.length > 0) {
          log.warn(
            `through PUBLIC, role ${result.role} (like every role) can still ${result.publicOpen.join('; ')}: ` +
              (opts.revokePublic ? 'the database owner or a superuser can revoke these' : 'run again with --revoke-public to revoke these database-wide'),
          );
        }
        // The docs once showed the command without --login: say what such a role is good for, and how to get one that logs in.
        if (result.created && !result.login) {
          log.info(`role ${result.role} cannot log in: GRANT ${result.role} TO an existing user, or run again with --login and $EFA_READER_PASSWORD set`);
        }
      }
    } finally {
      await db.close();
    }
  });
}
