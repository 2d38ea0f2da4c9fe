import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// PGlite runs inside each test process (about 1 GB and several seconds of CPU per instance): two
// workers fill the 2-core machine. Against a PostgreSQL server the work is the server's and the
// spawned CLIs', and a test spends much of its time waiting on them: a third worker fills that wait.
const onServer = Boolean(process.env['TEST_DATABASE_URL']);

const allFiles = 'test/**/*.test.ts';

const testDatabaseHelper = resolve('test/helpers/db.ts');

/** Whether `file` imports test/helpers/db.ts, itself or through the test's own modules it imports. */
function usesTestDatabase(file: string, seen = new Set<string>()): boolean {
  if (file === testDatabaseHelper) return true;
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const imports = [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) => join(dirname(file), `${m[1]}.ts`));
  return imports.some((imported) => imported.startsWith(resolve('test')) && usesTestDatabase(imported, seen));
}

/**
 * With TEST_DATABASE_URL, the files that use the database under test: those that take it from
 * test/helpers/db.ts (directly or through a helper), the one place that reads TEST_DATABASE_URL. The
 * other files (parsers, the simulator, the tiling, and what runs on PGlite whatever the server:
 * `serve`, the packed package) would run the same twice; `npm test` without it runs every file.
 * EFA_SYNC_TEST_ALL=1 runs every file on the server too.
 */
function filesUsingTheTestDatabase(): string[] {
  const files = readdirSync('test', { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.test.ts'));
  return files.map((name) => join('test', name)).filter((file) => usesTestDatabase(resolve(file)));
}

export default defineConfig({
  test: {
    include: onServer && process.env['EFA_SYNC_TEST_ALL'] !== '1' ? filesUsingTheTestDatabase() : [allFiles],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Each worker process runs its files one after another with the modules it has already loaded
    // (src, kysely, PGlite's JavaScript): importing them again for each of 177 files was ~150 s of
    // the CI's ~1,880 s. Safe here because no test mocks a module or changes process.env (the
    // global setup, in its own process, is the one place that sets variables); each file still
    // opens and disposes its own database.
    isolate: false,
    maxWorkers: onServer ? 3 : 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
