import { beforeAll, describe, expect, it } from 'vitest';
import { checkStatement, loadGuard } from '../../src/serve/guard.js';

/** Issue 29.1 and 29.3: the statement check itself never throws, and refuses what PGlite cannot take. */
describe('serve guard: bounded work, a reason for every refusal', () => {
  beforeAll(async () => {
    await loadGuard();
  });

  it.each([
    ['a 1,000-deep nested SELECT', `SELECT ${'(SELECT '.repeat(1000)}1${')'.repeat(1000)}`, /nested too deeply/],
    ['a 20,000-deep nested SELECT (the parser gives up)', `SELECT ${'(SELECT '.repeat(20000)}1${')'.repeat(20000)}`, /efa-sync serve: /],
    ['a 2,000-term sum', `SELECT ${Array.from({ length: 2000 }, () => '1').join('+')}`, /nested too deeply/],
    ['a 50,000-term sum', `SELECT ${Array.from({ length: 50000 }, () => '1').join('+')}`, /efa-sync serve: /],
    ['3,000 nested ARRAYs', `SELECT ${'ARRAY['.repeat(3000)}1${']'.repeat(3000)}`, /nested too deeply/],
    ['a statement over a million characters', `SELECT '${'x'.repeat(1_000_001)}'`, /over 1000000 characters/],
  ])('refuses %s with a reason, without throwing', (_what, sql, reason) => {
    const verdict = checkStatement(sql, false);
    expect(verdict.refused).toMatch(reason);
  });

  it('passes ordinary statements, and a wide IN list', () => {
    expect(checkStatement('SELECT name FROM efa.stops WHERE stop_id = $1', false)).toEqual({ parameters: 1 });
    expect(checkStatement(`SELECT 1 WHERE 3 IN (${Array.from({ length: 5000 }, (_, i) => i).join(',')})`, false).refused).toBeUndefined();
  });

  it('refuses client encodings PGlite cannot convert, and keeps UTF8 and SQL_ASCII', () => {
    for (const sql of ["SET client_encoding = 'SJIS'", 'SET client_encoding TO big5', "SET NAMES 'EUC_JP'", "SET LOCAL client_encoding = 'LATIN1'"]) {
      expect(checkStatement(sql, false).refused, sql).toMatch(/client_encoding .* is not supported/);
    }
    for (const sql of ["SET client_encoding = 'UTF8'", "SET NAMES 'utf-8'", "SET client_encoding = '''utf-8'''", 'SET client_encoding = utf_8', "SET client_encoding = 'SQL_ASCII'", 'RESET client_encoding', 'SET client_encoding TO DEFAULT']) {
      expect(checkStatement(sql, false).refused, sql).toBeUndefined();
    }
  });

  it('refuses what would reach into other clients of the shared session', () => {
    // DEALLOCATE ALL reaches only the client's own statements: others' are kept aside while it holds the session.
    expect(checkStatement('DEALLOCATE ALL', false).refused).toBeUndefined();
    expect(checkStatement('EXECUTE efa12_s1', false).refused).toMatch(/reserved/);
    expect(checkStatement('DEALLOCATE mine', false).refused).toBeUndefined();
    expect(checkStatement('COPY efa.runs FROM STDIN', true).refused).toMatch(/COPY FROM is refused/);
  });
});
