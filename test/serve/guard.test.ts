import { beforeAll, describe, expect, it } from 'vitest';
import { checkStatement, loadGuard } from '../../src/serve/guard.js';

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

  it('refuses the ways out of the reader role, server files and programs, and writes', () => {
    const refused: [string, RegExp][] = [
      ['SET SESSION AUTHORIZATION postgres', /session_authorization/],
      ['select 1; reset session authorization', /session_authorization/],
      ['SET LOCAL ROLE postgres', /changing role/],
      ['SET U&"\\0072ole" = postgres', /changing role/],
      ['RESET /* c */ "role"', /changing role/],
      ['DISCARD ALL', /DISCARD ALL/],
      ["SELECT pg_catalog.set_config('role', 'postgres', false)", /set_config/],
      ["WITH x AS (SELECT set_config('search_path', 'x', false)) SELECT * FROM x", /set_config/],
      ["COPY (SELECT 'x') TO '/data/PG_VERSION'", /server file/],
      ["COPY efa.stops FROM PROGRAM 'id'", /program/],
      ["SELECT lo_export(lo_from_bytea(0, 'x'), '/tmp/x')", /lo_(export|from_bytea)/],
      ["DO $$ BEGIN EXECUTE 'RESET ROLE'; END $$", /^efa-sync serve: DO statements are refused/],
      ['CREATE TABLE efa.x (i int)', /CREATE statements/],
      ['UPDATE efa.stops SET name = name', /UPDATE statements are refused: the database is served read-only/],
      ['ALTER SYSTEM SET work_mem = 1', /ALTER SYSTEM statements/],
      ['selec 1', /syntax error/],
      // Issue 44: only an allow-list of settings; text-reading settings keep the value the check parses with; read-only stays on.
      ['SET standard_conforming_strings = off', /standard_conforming_strings is refused except to its default/],
      ["SET backslash_quote = 'on'", /backslash_quote is refused/],
      ['SET escape_string_warning TO false', /escape_string_warning is refused/],
      ['SET default_transaction_read_only = off', /default_transaction_read_only can only be on/],
      ['SET default_transaction_read_only TO DEFAULT', /can only be on/],
      ['RESET transaction_read_only', /can only be on/],
      ['SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE', /READ WRITE is refused/],
      ['BEGIN READ WRITE', /READ WRITE is refused/],
      ['SET TRANSACTION READ WRITE', /READ WRITE is refused/],
      ['RESET ALL', /RESET ALL is refused/],
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
