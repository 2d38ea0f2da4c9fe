import { beforeAll, describe, expect, it } from 'vitest';
import { checkStatement, DISCARD_ALL_AS_READER, loadGuard } from '../../src/serve/guard.js';

/** Issue 22.3: what `serve` lets a client send, decided on PostgreSQL's own parse tree. */
describe('the statement check of serve', () => {
  beforeAll(() => loadGuard());

  it('lets what psql, QGIS, DBeaver and ogr2ogr send through, read-only', () => {
    for (const q of [
      'SELECT count(*) FROM efa.stops',
      "SELECT f_table_name, f_geometry_column, type, srid FROM public.geometry_columns WHERE f_table_schema = 'efa'",
      'BEGIN READ ONLY',
      "SET application_name = 'QGIS'; SET extra_float_digits = 3; SET search_path = efa, public",
      'SHOW server_version',
      'DECLARE qgis BINARY CURSOR FOR SELECT st_asbinary(geom) FROM efa.stops WHERE geom && st_makeenvelope(9, 48, 10, 49, 4326)',
      'FETCH FORWARD 2000 FROM qgis',
      'CLOSE qgis',
      'COMMIT',
      'EXPLAIN SELECT * FROM efa.pins',
      'COPY (SELECT * FROM efa.stops) TO STDOUT',
      'SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY',
      'DISCARD PLANS',
      "SET standard_conforming_strings = on; SET DateStyle = 'ISO, MDY'; SET TIME ZONE 'UTC'; SET bytea_output = hex",
      'SET default_transaction_read_only = on; SET enable_seqscan = off; RESET search_path',
      'START TRANSACTION READ ONLY',
      'SELECT $1::text, $3::int',
    ]) {
      expect(checkStatement(q, false).refused, q).toBeUndefined();
    }
    expect(checkStatement('SELECT $1::text, $3::int', false).parameters).toBe(3);
  });

  it('lets through what pg_dump, pgAdmin, asyncpg and pooled drivers send on connect, dump and reset (issue 53.3)', () => {
    for (const q of [
      "SELECT pg_catalog.set_config('search_path', '', false)",
      "SELECT set_config('bytea_output','hex',false)",
      "SELECT set_config('statement_timeout', '5s'::text, true)",
      'SET synchronize_seqscans TO off',
      'BEGIN; LOCK TABLE efa.pins, efa.lines IN ACCESS SHARE MODE',
      'RESET ALL',
      'DEALLOCATE ALL',
      'SET default_transaction_read_only TO DEFAULT',
      'RESET transaction_read_only',
      "SET client_encoding = '''utf-8'''",
      'SET client_encoding TO utf_8',
      'SET idle_in_transaction_session_timeout = 0',
      "SET idle_session_timeout = '0'",
    ]) {
      expect(checkStatement(q, false).refused, q).toBeUndefined();
    }
    expect(checkStatement('DISCARD ALL', false)).toEqual({ parameters: 0, rewrite: { sql: DISCARD_ALL_AS_READER, tag: 'DISCARD ALL' } });
    expect(checkStatement('DISCARD ALL', false).refused).toBeUndefined();
  });

  it('passes a syntax error on for the server to report with its SQLSTATE and position (issue 53.4)', () => {
    expect(checkStatement('selec 1', false)).toEqual({ parameters: 0 });
    expect(checkStatement("SELECT 'unterminated", false)).toEqual({ parameters: 0 });
  });

  it('refuses the ways out of the reader role, server files and programs, and writes', () => {
    const refused: [string, RegExp][] = [
      ['SET SESSION AUTHORIZATION postgres', /session_authorization/],
      ['select 1; reset session authorization', /session_authorization/],
      ['SET LOCAL ROLE postgres', /changing role/],
      ['SET U&"\\0072ole" = postgres', /changing role/],
      ['RESET /* c */ "role"', /changing role/],
      ['DISCARD ALL; SELECT 1', /DISCARD ALL must be sent on its own/],
      ["SELECT pg_catalog.set_config('role', 'postgres', false)", /changing role/],
      ["SELECT set_config('default_transaction_read_only', 'off', false)", /can only be on/],
      ["SELECT set_config(name, 'x', false) FROM pg_settings", /constant setting name and value/],
      ["SELECT set_config('idle_session_timeout', '1s', false)", /idle_session_timeout is refused except to 0/],
      ["SET idle_in_transaction_session_timeout = '1s'", /idle_in_transaction_session_timeout is refused except to 0/],
      ['SET transaction_timeout = 5000', /transaction_timeout is refused except to 0/],
      ['LOCK TABLE efa.pins IN ACCESS EXCLUSIVE MODE', /LOCK is refused except IN ACCESS SHARE MODE/],
      ['LOCK efa.pins', /LOCK is refused/],
      ["COPY (SELECT 'x') TO '/data/PG_VERSION'", /server file/],
      ["COPY efa.stops FROM PROGRAM 'id'", /program/],
      ["SELECT lo_export(lo_from_bytea(0, 'x'), '/tmp/x')", /lo_(export|from_bytea)/],
      ["DO $$ BEGIN EXECUTE 'RESET ROLE'; END $$", /^efa-sync serve: DO statements are refused/],
      ['CREATE TABLE efa.x (i int)', /CREATE statements/],
      ['UPDATE efa.stops SET name = name', /UPDATE statements are refused: the database is served read-only/],
      ['ALTER SYSTEM SET work_mem = 1', /ALTER SYSTEM statements/],
      ['SELECT ' + '('.repeat(20000) + '1' + ')'.repeat(20000), /memory exhausted/],
      // Issue 44: only an allow-list of settings; text-reading settings keep the value the check parses with; read-only stays on.
      ['SET standard_conforming_strings = off', /standard_conforming_strings is refused except to its default/],
      ["SET backslash_quote = 'on'", /backslash_quote is refused/],
      ['SET escape_string_warning TO false', /escape_string_warning is refused/],
      ['SET default_transaction_read_only = off', /default_transaction_read_only can only be on/],
      ['SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE', /READ WRITE is refused/],
      ['BEGIN READ WRITE', /READ WRITE is refused/],
      ['SET TRANSACTION READ WRITE', /READ WRITE is refused/],
      ['SET log_statement = none', /SET log_statement is refused/],
      ['SET work_mem = 2000000', /SET work_mem is refused/],
      ["SELECT query_to_xml('select 1', true, false, '')", /query_to_xml\(\) is refused/],
      ['SELECT pg_terminate_backend(pg_backend_pid())', /pg_terminate_backend\(\) is refused/],
    ];
    for (const [q, why] of refused) expect(checkStatement(q, false).refused, q).toMatch(why);
  });

  it('with --write lets row changes through, never DDL, roles or files', () => {
    expect(checkStatement('UPDATE efa.runs SET error = $1 WHERE run_id = $2', true).refused).toBeUndefined();
    expect(checkStatement("INSERT INTO efa.notes VALUES ('x')", true).refused).toBeUndefined();
    expect(checkStatement('SELECT lo_create(0)', true).refused).toMatch(/lo_create\(\) is refused/);
    expect(checkStatement('SET default_transaction_read_only = off; BEGIN READ WRITE', true).refused).toBeUndefined();
    expect(checkStatement('DROP TABLE efa.stops', true).refused).toMatch(/DROP statements are refused: serve --write/);
    expect(checkStatement('SET ROLE postgres', true).refused).toMatch(/changing role/);
    expect(checkStatement("COPY efa.stops TO '/tmp/x'", true).refused).toMatch(/server file/);
  });
});
