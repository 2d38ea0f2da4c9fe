"""psycopg 3 against `efa-sync serve`: queries with parameters (the extended protocol), statements it prepares
itself after five runs, and a named (server-side) cursor read with fetchmany in chunks: psycopg 3 declares it in
SQL and then reads it as a protocol portal by the same name. One JSON line per check (conformance_checks.py)."""
from conformance_checks import HOST, KEYS_SQL, PORT, REF, UMLAUT_SQL, check, expect_error, five_queries, keys_digest, step
import psycopg

conn = psycopg.connect(host=HOST, port=PORT, user="postgres", dbname="postgres", sslmode="disable", autocommit=True)
check("connect", "connects; select current_user", "efa_serve", conn.execute("select current_user").fetchone()[0])


def one(sql):
    # binary results make psycopg 3 send Parse/Bind/Execute (without parameters it would use a simple Query)
    return conn.execute(sql, binary=True).fetchone()[0]


step("rows", "five queries, extended protocol", lambda: five_queries("rows", "", one))


def after_error():
    expect_error("after_error", "select 1/%s with 0", "22012", lambda: conn.execute("select 1/%s", (0,)).fetchone()[0])
    five_queries("after_error", " after select 1/0", one)
    with conn.transaction(force_rollback=True):
        expect_error("after_error", "in a transaction: select 1/0", "22012", lambda: conn.execute("select 1/0").fetchone()[0])
    check("after_error", "after the rolled-back transaction: select %s", "C", conn.execute("select %s::text", ("C",)).fetchone()[0])


step("after_error", "errors", after_error)


def prepared():
    got = [conn.execute("select %s::int * 2, count(*) from efa.pins", (i,)).fetchone() for i in range(1, 11)]
    check("pool_cursor", "one query run 10 times (prepared by psycopg after 5): each answer", [(2 * i, REF["pins"]) for i in range(1, 11)], got)


step("pool_cursor", "prepared", prepared)


def named_cursor():
    with conn.transaction():
        with conn.cursor(name="efa_named") as cur:
            cur.execute(KEYS_SQL)
            n, digest = keys_digest(iter(lambda: cur.fetchmany(500), []))
    check("pool_cursor", "named cursor, fetchmany(500): rows", REF["pins"], n)
    check("pool_cursor", "named cursor, fetchmany(500): md5 of the keys in order", REF["keysMd5"], digest)
    with conn.cursor(name="efa_held", withhold=True) as cur:  # autocommit: a cursor WITH HOLD outlives its transaction
        cur.execute(UMLAUT_SQL)
        check("pool_cursor", "named cursor WITH HOLD: a stop name with an umlaut", REF["umlaut"], cur.fetchone()[0])
    check("pool_cursor", "select 'A' after the cursors", "A", one("select 'A'"))


step("pool_cursor", "named cursor", named_cursor)
conn.close()
