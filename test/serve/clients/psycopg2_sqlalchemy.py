"""psycopg2 and SQLAlchemy's inspector as Superset uses them (options=-csearch_path=efa), pandas when it is
installed, against `efa-sync serve`. One JSON line per check (conformance_checks.py)."""
from conformance_checks import HOST, KEYS_SQL, PORT, REF, check, emit, expect_error, five_queries, keys_digest, step
import warnings

import psycopg2
import sqlalchemy
from sqlalchemy import inspect, text

DSN = dict(host=HOST, port=PORT, user="postgres", dbname="postgres", sslmode="disable", options="-csearch_path=efa", application_name="efa-conformance")

conn = psycopg2.connect(**DSN)
check("connect", "connects; select current_user", "efa_serve", (lambda c: (c.execute("select current_user"), c.fetchone()[0])[1])(conn.cursor()))


def one(sql, c=conn):
    with c.cursor() as cur:
        try:
            cur.execute(sql)
            return cur.fetchone()[0]
        except Exception:
            c.rollback()  # psycopg2 starts a transaction: an error leaves it aborted until rollback
            raise


step("connect", "options=-csearch_path=efa", lambda: check("connect", "options=-csearch_path=efa: show search_path", "efa", one("show search_path")))
step("rows", "five queries", lambda: five_queries("rows", "", one))
conn.rollback()


def after_error():
    expect_error("after_error", "select 1/0", "22012", lambda: one("select 1/0"))
    five_queries("after_error", " after select 1/0 and rollback()", one)
    expect_error("after_error", "selec 1", "42601", lambda: one("selec 1"))
    check("after_error", "select 'B' after selec 1", "B", one("select 'B'"))
    conn.rollback()
    conn.autocommit = True
    expect_error("after_error", "autocommit: select 1/0", "22012", lambda: one("select 1/0"))
    check("after_error", "autocommit: select 'C' after select 1/0", "C", one("select 'C'"))


step("after_error", "errors", after_error)


def named_cursor():
    conn.autocommit = False
    with conn.cursor(name="efa_conformance") as cur:  # DECLARE … CURSOR, then FETCH FORWARD in SQL
        cur.itersize = 500
        cur.execute(KEYS_SQL)
        n, digest = keys_digest(iter(lambda: cur.fetchmany(500), []))
    conn.commit()
    check("pool_cursor", "psycopg2 named cursor, fetchmany(500): rows", REF["pins"], n)
    check("pool_cursor", "psycopg2 named cursor, fetchmany(500): md5 of the keys in order", REF["keysMd5"], digest)


step("pool_cursor", "psycopg2 named cursor", named_cursor)
conn.close()

warnings.filterwarnings("ignore", category=sqlalchemy.exc.SAWarning)  # "Did not recognize type 'geometry'": no GeoAlchemy2 here
engine = sqlalchemy.create_engine(
    "postgresql+psycopg2://postgres@%s:%d/postgres" % (HOST, PORT),
    connect_args={"options": "-csearch_path=efa", "sslmode": "disable"},
    pool_size=1,
    max_overflow=0,
)


def superset_inspector():
    insp = inspect(engine)
    check("introspect", "inspector default_schema_name (search_path from options)", "efa", insp.default_schema_name)
    check("introspect", "get_schema_names has efa", True, "efa" in insp.get_schema_names())
    check("introspect", "get_table_names(efa) has pins and runs", True, {"pins", "runs"} <= set(insp.get_table_names(schema="efa")))
    check("introspect", "get_view_names(efa) has stops", True, "stops" in insp.get_view_names(schema="efa"))
    columns = {c["name"]: str(c["type"]) for c in insp.get_columns("pins", schema="efa")}
    check("introspect", "get_columns(pins) has pin_key, name, geom", True, {"pin_key", "name", "geom"} <= set(columns))
    check("introspect", "get_pk_constraint(pins)", ["fid"], insp.get_pk_constraint("pins", schema="efa")["constrained_columns"])
    check("introspect", "get_foreign_keys(stop_lines)", ["lines"], [fk["referred_table"] for fk in insp.get_foreign_keys("stop_lines", schema="efa")])
    check("introspect", "get_indexes(pins) has pins_source_type_idx", True, "pins_source_type_idx" in [i["name"] for i in insp.get_indexes("pins", schema="efa")])


step("introspect", "SQLAlchemy inspector", superset_inspector)


def pooled_after_error():
    # pool_size 1: the second checkout is the connection the error was raised on, returned with a rollback
    with engine.connect() as c:
        expect_error("pool_cursor", "SQLAlchemy pooled connection: select 1/0", "22012", lambda: c.execute(text("select 1/0")).scalar())
    with engine.connect() as c:
        check("pool_cursor", "SQLAlchemy pool, same connection after its error: count(*) from efa.pins", REF["pins"], c.execute(text("select count(*) from efa.pins")).scalar())
        check("pool_cursor", "SQLAlchemy pool, same connection after its error: search_path from options", "efa", c.execute(text("show search_path")).scalar())
        check("pool_cursor", "SQLAlchemy pool, same connection after its error: select 'A'", "A", c.execute(text("select 'A'")).scalar())


step("pool_cursor", "SQLAlchemy pool", pooled_after_error)

try:
    import pandas
except ImportError:
    pandas = None
if pandas is not None:
    step("rows", "pandas.read_sql", lambda: check("rows", "pandas.read_sql count(*) from efa.pins", REF["pins"], int(pandas.read_sql("select count(*) as n from efa.pins", engine)["n"][0])))
else:
    print("note: pandas is not installed here: its read_sql was not run", flush=True)
engine.dispose()
