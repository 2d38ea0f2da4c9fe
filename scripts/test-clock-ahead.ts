/**
 * Runs the test suite with the clock of every process it starts (vitest, its workers, the CLIs the tests
 * spawn) moved ahead, through libfaketime (Debian: `apt-get install faketime`), so that a test that mixes
 * a fixed day with the machine's shows itself:
 *   npm run test:clock-ahead                       a year ahead, the whole suite on PGlite
 *   npm run test:clock-ahead -- test/e2e/resume.test.ts
 *   EFA_TEST_CLOCK_OFFSET=+40d npm run test:clock-ahead
 *   EFA_TEST_CLOCK_POSTGRES=1 npm run test:clock-ahead
 *                                                  the PostgreSQL suite, against a throw-away PostgreSQL
 *                                                  server started with the same clock (see clock-ahead-postgres.ts)
 * Monotonic clocks are left alone (timeouts and backoff keep their length). A PostgreSQL server of
 * the machine under TEST_DATABASE_URL keeps its own clock: use EFA_TEST_CLOCK_POSTGRES=1 instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { offsetSeconds, PostgresAheadError, startPostgresAhead, type PostgresAhead } from './clock-ahead-postgres.js';

const candidates = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
  '/usr/local/lib/faketime/libfaketime.so.1',
];
const library = process.env['EFA_TEST_FAKETIME_LIB'] ?? candidates.find((path) => existsSync(path));
if (!library || !existsSync(library)) {
  process.stderr.write('test:clock-ahead: libfaketime is not installed (Debian: apt-get install faketime; or set EFA_TEST_FAKETIME_LIB to its path)\n');
  process.exit(2);
}
const offset = process.env['EFA_TEST_CLOCK_OFFSET'] ?? '+365d';
try {
  offsetSeconds(offset);
} catch (error) {
  if (!(error instanceof PostgresAheadError)) throw error;
  process.stderr.write(`test:clock-ahead: EFA_TEST_CLOCK_OFFSET=${error.message}\n`);
  process.exit(2);
}
const fake = { LD_PRELOAD: [process.env['LD_PRELOAD'], library].filter(Boolean).join(':'), FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' };

let server: PostgresAhead | undefined;
try {
  server = process.env['EFA_TEST_CLOCK_POSTGRES'] === '1' ? startPostgresAhead(offset) : undefined;
} catch (error) {
  if (!(error instanceof PostgresAheadError)) throw error;
  process.stderr.write(`test:clock-ahead: ${error.message}\n`);
  process.exit(2);
}
// Ctrl-C reaches vitest too; waiting for it to end lets `finally` stop the server and remove its folder.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
let status = 1;
try {
  const result = spawnSync('npx', ['vitest', 'run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ...fake, ...(server ? { TEST_DATABASE_URL: server.url } : {}) },
  });
  status = result.status ?? 1;
} finally {
  server?.stop();
}
process.exit(status);
