/**
 * Runs the test suite with the clock of every process it starts (vitest, its workers, the CLIs the tests
 * spawn) moved ahead, through libfaketime (Debian: `apt-get install faketime`), so that a test that mixes
 * a fixed day with the machine's shows itself:
 *   npm run test:clock-ahead                       a year ahead, the whole suite
 *   npm run test:clock-ahead -- test/e2e/resume.test.ts
 *   EFA_TEST_CLOCK_OFFSET=+40d npm run test:clock-ahead
 * Monotonic clocks are left alone (timeouts and backoff keep their length). A PostgreSQL server under
 * TEST_DATABASE_URL keeps its own clock: the PGlite run is the one in which every clock moves together.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
if (!/^[+-]\d+[smhdy]?$/.test(offset)) {
  process.stderr.write(`test:clock-ahead: EFA_TEST_CLOCK_OFFSET=${offset}: give an offset such as +365d or -30d\n`);
  process.exit(2);
}
const preload = [process.env['LD_PRELOAD'], library].filter(Boolean).join(':');
const result = spawnSync('npx', ['vitest', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, LD_PRELOAD: preload, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' },
});
process.exit(result.status ?? 1);
