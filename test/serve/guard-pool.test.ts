import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCARD_ALL_AS_READER, TOO_COMPLEX } from '../../src/serve/guard.js';
import { GuardPool } from '../../src/serve/guard-pool.js';

/**
 * Issue 54.1, 54.7: the statement check on worker threads gives the same verdicts as on the
 * proxy's thread, and a statement that breaks the parser or outlasts the deadline is refused as too
 * complex (54001) while a fresh parser takes the next one.
 */

const hostileSum = `select ${Array.from({ length: 64_000 }, (_, i) => i).join(' + ')}`;

describe('the statement check off the proxy thread', () => {
  const problems: string[] = [];
  const pool = new GuardPool({ size: 1, onProblem: (what) => problems.push(what) });
  beforeAll(() => pool.start(), 60_000);
  afterAll(() => pool.stop());

  it('gives the verdicts of the check itself: allowed, refused, rewritten, a syntax error left to the server', async () => {
    expect(await pool.check('SELECT $1::text, $3::int', false)).toEqual({ parameters: 3 });
    expect((await pool.check('DROP TABLE efa.stops', false)).refused).toMatch(/DROP statements are refused/);
    expect(await pool.check('DISCARD ALL', false)).toEqual({ parameters: 0, rewrite: { sql: DISCARD_ALL_AS_READER, tag: 'DISCARD ALL' } });
    expect(await pool.check('selec 1', false)).toEqual({ parameters: 0 });
    expect(await pool.check('UPDATE efa.runs SET error = $1 WHERE run_id = $2', true)).toEqual({ parameters: 2 });
    expect((await pool.check('x'.repeat(1_000_001), false)).refused).toMatch(/over 1000000 characters are refused/);
  });

  it('refuses a 64,000-term sum as too complex, replaces the parser, and checks the next statement as before', async () => {
    for (let i = 0; i < 3; i++) {
      const verdict = await pool.check(hostileSum, false);
      expect(verdict.refused).toMatch(/too complex to check/);
      expect(verdict.code).toBe(TOO_COMPLEX);
    }
    expect(problems.filter((p) => /broke its parser: starting a fresh one/.test(p))).toHaveLength(3);
    expect(await pool.check('select 1', false)).toEqual({ parameters: 0 });
  }, 60_000);

  it('checks statements of several clients in turn, each with its own verdict', async () => {
    const verdicts = await Promise.all([pool.check('select $2', false), pool.check(hostileSum, false), pool.check('DELETE FROM efa.stops', false), pool.check('select $1', false)]);
    expect(verdicts.map((v) => v.code ?? v.refused ?? v.parameters)).toEqual([2, TOO_COMPLEX, expect.stringMatching(/DELETE statements are refused/), 1]);
  }, 60_000);
});

describe('a statement not checked within the deadline', () => {
  const problems: string[] = [];
  // A deadline no parse meets: every statement that reaches a parser outlasts it.
  const pool = new GuardPool({ size: 1, deadlineMs: 0, onProblem: (what) => problems.push(what) });
  beforeAll(() => pool.start(), 60_000);
  afterAll(() => pool.stop());

  it('is refused as too complex and its parser replaced; the statements behind it are answered too', async () => {
    // A long IN list: its parse takes far longer than the deadline's first tick.
    const long = `SELECT 1 WHERE 3 IN (${Array.from({ length: 50_000 }, (_, i) => i).join(',')})`;
    const verdicts = await Promise.all([pool.check(long, false), pool.check(long, false)]);
    for (const verdict of verdicts) expect(verdict).toMatchObject({ code: TOO_COMPLEX, refused: expect.stringMatching(/not checked within 0 s/) });
    expect(problems.filter((p) => /not checked within 0 s: starting a fresh one/.test(p))).toHaveLength(2);
    // Text that needs no parse is answered without a parser.
    expect(await pool.check('  ', false)).toEqual({ parameters: 0 });
  }, 60_000);
});
