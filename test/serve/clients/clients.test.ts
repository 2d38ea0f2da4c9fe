import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClient, startConformance, type Conformance } from './conformance.js';
import { CLIENTS } from './programs.js';
import { CLIENTS_DOC, clientsMarkdown, failures, withClientsTable, type ClientResult } from './results.js';

/**
 * Issue 53.6: the clients analysts' tools are built on, against `efa-sync serve` on the `npm start`
 * warehouse, each checking the values it gets (psql's count, a name with an umlaut, the md5 of every key
 * read through a cursor), before and after a failing statement. One warehouse and one serve for the file;
 * the clients run one after another. A client whose runtime is missing is skipped with the reason, except
 * in CI (`CI` set: .ci/run installs them all), where that fails. The last test checks that the table in
 * docs/analysts/serve.md is what this run found (`npm run docs:serve-clients` regenerates it). Then the
 * same clients against a serve with the statement check off (the test-only EFA_SERVE_TEST_NO_GUARD=1,
 * issue 53.7): what they need must work by privilege alone, not because the check in front answers it.
 * `serve` is for the embedded database: PGlite whatever TEST_DATABASE_URL says.
 */

let conformance: Conformance | undefined;
const results: ClientResult[] = [];
const inCi = Boolean(process.env['CI']);

beforeAll(async () => {
  conformance = await startConformance();
}, 900_000);

afterAll(async () => {
  await conformance?.stop();
});

/** One test per client: runs it, records its result, fails on any wrong answer; skipped (not in CI) without its runtime. */
function eachClient(record: ClientResult[] | undefined): void {
  for (const spec of CLIENTS) {
    it(`${spec.label}: every checked answer is right`, async (ctx) => {
      if (!conformance) throw new Error('serve did not start');
      const result = await runClient(spec, conformance);
      record?.push(result);
      if (result.skipped !== undefined) {
        if (inCi) throw new Error(`${spec.label}: ${result.skipped} (.ci/run installs it)`);
        ctx.skip(result.skipped);
      }
      expect(result.checks.length).toBeGreaterThan(0);
      expect(failures(result)).toEqual([]);
      // No client takes serve away from the next one.
      expect(conformance.served.child.exitCode).toBeNull();
    }, 300_000);
  }
}

describe('real clients against efa-sync serve', () => {
  eachClient(results);

  it(`the clients table in ${CLIENTS_DOC} is what this run found`, (ctx) => {
    if (results.length !== CLIENTS.length || results.some((r) => r.skipped !== undefined)) ctx.skip('not every client ran here');
    const path = fileURLToPath(new URL(`../../../${CLIENTS_DOC}`, import.meta.url));
    const doc = readFileSync(path, 'utf8');
    expect(doc, 'run `npm run docs:serve-clients` and commit the result').toBe(withClientsTable(doc, clientsMarkdown(results)));
  });
});

describe('the same clients with the statement check off: privilege alone', () => {
  beforeAll(async () => {
    await conformance?.serveAgain({ EFA_SERVE_TEST_NO_GUARD: '1' });
  }, 300_000);

  eachClient(undefined);
});
