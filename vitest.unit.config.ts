import { defineConfig } from 'vitest/config';

// Unit tests only: no database, no global setup. Used by helpers and for quick local loops.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/db/**', 'test/e2e/**', 'test/report/**', '**/node_modules/**'],
    testTimeout: 60_000,
  },
});
