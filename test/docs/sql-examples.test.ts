import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJob } from '../../src/job/index.js';
import { runJob } from '../../src/run/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';
import { fencedBlocks, readDocs, tableRows } from './markdown.js';

/**
 * Every SQL example of README.md and docs/ runs on the warehouse `npm start` leaves (issue 45 point 7:
 * 13 of 24 answered nothing there, for dates and keys written out) and answers rows, unless it says
 * `-- may be empty: <why>`. The warehouse is the demo's (jobs/demo.json over the simulator's default
 * world, as `efa-sync demo` runs it) with a second source over part of the same city, so an example
 * that needs `source` to make sense runs where it matters.
 *
 * A ```sql block is a query of the warehouse; other SQL says what it is in its info string.
 */
const notRun: Readonly<Record<string, string>> = {
  'sql duckdb': 'DuckDB over the lake: test/lake/lake.test.ts runs it over its lake',
  'sql trino': 'Trino over a lake in object storage',
  'sql psql': "a superuser's setup in psql (\\c): creates roles and databases",
  'sql template': 'the shape of a definition file, with … for its body',
};

interface Example {
  /** file:line, and the statement's first line. */
  readonly name: string;
  readonly sql: string;
  readonly mayBeEmpty: string | undefined;
}

const root = join(import.meta.dirname, '..', '..');
const docs = await readDocs(root);

/** The statements of a block, each with the comments above it; a chunk of comments alone is no statement. */
function statements(code: string): string[] {
  return code
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('--')));
}

function example(where: string, text: string): Example {
  const first = text.split('\n').find((l) => !l.trim().startsWith('--')) ?? '';
  const marker = /--\s*may be empty:\s*(\S.*)$/m.exec(text);
  return { name: `${where}: ${first.trim().slice(0, 80)}`, sql: text, mayBeEmpty: marker?.[1] };
}

/** A query a comment offers beside the block's own (`-- or, precomputed …: SELECT * FROM efa.stop_summary …;`). */
function commentedQueries(code: string): string[] {
  return [...code.matchAll(/^\s*--[^\n]*?:\s*(SELECT\b[^\n]*?);\s*$/gm)].map((m) => m[1] ?? '');
}

/** `SELECT * FROM efa.f(…)` with its parentheses balanced, as the function comments in docs/schema.md give them. */
function inlineCalls(text: string): string[] {
  const calls: string[] = [];
  for (const m of text.matchAll(/SELECT \* FROM efa\.\w+\(/g)) {
    let depth = 0;
    for (let i = m.index; i < text.length; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')' && --depth === 0) {
        calls.push(text.slice(m.index, i + 1));
        break;
      }
    }
  }
  return calls;
}

const examples: Example[] = [];
const unknownInfo: string[] = [];
for (const doc of docs) {
  for (const block of fencedBlocks(doc.text)) {
    if (block.info === 'sql') {
      examples.push(...statements(block.code).map((s) => example(`${doc.path}:${block.line}`, s)));
      examples.push(...commentedQueries(block.code).map((s) => example(`${doc.path}:${block.line} (comment)`, s)));
    }
    else if (block.info.startsWith('sql') && notRun[block.info] === undefined) unknownInfo.push(`${doc.path}:${block.line} ${block.info}`);
  }
  for (const row of tableRows(doc.text)) for (const call of inlineCalls(row)) examples.push(example(`${doc.path} (table)`, call));
}

describe('the SQL examples of README.md and docs/ on the demo warehouse with a second source', () => {
  let sim: Simulator;
  let t: TestDb;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 1, size: 5000 });
    t = await openTestDb();
    const log = createLogger({ level: 'error', format: 'json' });
    const demo = await loadJob(join(root, 'jobs', 'demo.json'));
    await runJob({ loaded: demo, db: t.db, log, baseUrl: sim.url });
    // Another deployment over the city centre: the same stops by their global ids, under source `mitte`.
    const mitte = inlineJob({ ...demo.job, name: 'mitte', source: 'mitte', baseUrl: sim.url, region: { bbox: [9.15, 48.76, 9.21, 48.79] } });
    await runJob({ loaded: mitte, db: t.db, log });
  }, 600_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('finds the examples, and every other SQL block says what it is', () => {
    // The issue counted 24; fewer would mean the extraction lost some.
    // The issue counted 24 with the DuckDB query of docs/lake.md, which test/lake runs.
    expect(examples.length).toBeGreaterThanOrEqual(23);
    expect(examples.filter((e) => e.name.startsWith('docs/schema.md:')).length).toBeGreaterThanOrEqual(10);
    expect(examples.filter((e) => e.name.startsWith('docs/schema.md (table)') && /_as_of\(/.test(e.sql)).length).toBeGreaterThanOrEqual(7);
    expect(unknownInfo).toEqual([]);
    for (const e of examples) if (e.mayBeEmpty !== undefined) expect(e.mayBeEmpty.length, e.name).toBeGreaterThan(10);
  });

  it.each(examples)('$name', async (e) => {
    const r = await sql.raw(e.sql).execute(t.db.kysely);
    if (e.mayBeEmpty !== undefined) return;
    // The function comments give one example per relation with history: of a relation the demo job
    // does not fill (sharing stations come from rapidJSON station details), as-of is empty too.
    const relation = /^SELECT \* FROM efa\.(\w+)_as_of\(/.exec(e.sql)?.[1];
    if (r.rows.length === 0 && relation !== undefined) {
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`efa.${relation}`)}`.execute(t.db.kysely);
      expect(rows.rows[0]?.n, `${e.name}: efa.${relation} has rows, its as-of none`).toBe(0);
      return;
    }
    expect(r.rows.length, `${e.name} answered no row on the demo warehouse`).toBeGreaterThan(0);
  });
});
