import { defineConfig } from 'vitest/config';

// PGlite runs inside each test process (about 1 GB and several seconds of CPU per instance): two
// workers fill the 2-core machine. Against a PostgreSQL server the work is the server's and the
// spawned CLIs', and a test spends much of its time waiting on them: a third worker fills that wait.
const onServer = Boolean(process.env['TEST_DATABASE_URL']);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: onServer ? 3 : 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
