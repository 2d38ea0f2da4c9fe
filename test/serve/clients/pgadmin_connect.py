"""pgAdmin 4's connect, as its psycopg 3 driver sends it (web/pgadmin/utils/driver/psycopg3/connection.py,
_initialize and _set_user_info), then its query tool's error and the next query. One JSON line per check
(conformance_checks.py)."""
from conformance_checks import HOST, PORT, REF, check, expect_error, step
import psycopg
from psycopg._encodings import py_codecs

# pgAdmin maps PostgreSQL's encoding names to Python's itself (configure_driver_encodings): 'UNICODE', which
# it sets and PostgreSQL reports back as given (kept for old JDBC drivers), is not a name psycopg knows.
py_codecs.update({b"UNICODE": "utf-8", "UNICODE": "utf-8"})

# pgAdmin sets PGAPPNAME to "pgAdmin 4 - <connection id>" and connects with autocommit
conn = psycopg.connect(host=HOST, port=PORT, user="postgres", dbname="postgres", sslmode="disable", application_name="pgAdmin 4 - CONN:1", autocommit=True)
check("connect", "connects", "efa_serve", conn.execute("select current_user").fetchone()[0])


def connect_batch():
    with conn.cursor() as cur:
        # one simple Query of four statements, as pgAdmin sends it ('UNICODE' is its name for UTF8)
        cur.execute(
            "SET DateStyle=ISO; SET client_min_messages=notice; "
            "SELECT set_config('bytea_output','hex',false) FROM pg_settings WHERE name = 'bytea_output'; "
            "SET client_encoding='UNICODE';"
        )
        cur.execute("SELECT version()")
        check("connect", "SELECT version() names PostgreSQL", "PostgreSQL", cur.fetchone()[0].split(" ")[0])
        check("connect", "after the batch: DateStyle", "ISO", conn.execute("show DateStyle").fetchone()[0].split(",")[0])
        check("connect", "after the batch: bytea_output", "hex", conn.execute("show bytea_output").fetchone()[0])
        shown = conn.execute("show client_encoding").fetchone()[0]  # PostgreSQL reports 'UNICODE' back as set
        check("connect", "after the batch: client_encoding", "UTF-8", "UTF-8" if shown in ("UNICODE", "UTF8") else shown)
        cur.execute(
            "SELECT db.oid as did, db.datname, db.datallowconn, pg_encoding_to_char(db.encoding) AS serverencoding, "
            "has_database_privilege(db.oid, 'CREATE') as cancreate, datistemplate "
            "FROM pg_catalog.pg_database db WHERE db.datname = current_database()"
        )
        row = cur.fetchone()
        check("connect", "pgAdmin's database query: name, encoding, may create", "postgres UTF8 False", "%s %s %s" % (row[1], row[3], row[4]))
        cur.execute("SELECT gss_authenticated, encrypted FROM pg_catalog.pg_stat_gssapi WHERE pid = pg_backend_pid()")
        cur.fetchall()
        cur.execute(
            "SELECT roles.oid as id, roles.rolname as name, roles.rolsuper as is_superuser, "
            "CASE WHEN roles.rolsuper THEN true ELSE roles.rolcreaterole END as can_create_role, "
            "CASE WHEN roles.rolsuper THEN true ELSE roles.rolcreatedb END as can_create_db, "
            "CASE WHEN 'pg_signal_backend'=ANY(ARRAY(WITH RECURSIVE cte AS ("
            "SELECT pg_roles.oid,pg_roles.rolname FROM pg_roles WHERE pg_roles.oid = roles.oid "
            "UNION ALL SELECT m.roleid,pgr.rolname FROM cte cte_1 JOIN pg_auth_members m ON m.member = cte_1.oid "
            "JOIN pg_roles pgr ON pgr.oid = m.roleid) SELECT rolname FROM cte)) THEN True ELSE False END as can_signal_backend "
            "FROM pg_catalog.pg_roles as roles WHERE rolname = current_user"
        )
        row = cur.fetchone()
        check("connect", "pgAdmin's role query: name, superuser, create role, create db", "efa_serve False False False", "%s %s %s %s" % (row[1], row[2], row[3], row[4]))


step("connect", "pgAdmin's connect batch", connect_batch)


def browser_tree():
    schemas = [r[0] for r in conn.execute("SELECT nsp.nspname FROM pg_catalog.pg_namespace nsp WHERE nsp.nspname NOT LIKE 'pg\\_%' ORDER BY nspname").fetchall()]
    check("introspect", "schemas in the browser tree have efa", True, "efa" in schemas)
    tables = [r[0] for r in conn.execute("SELECT rel.relname FROM pg_catalog.pg_class rel WHERE rel.relkind IN ('r','t','f','p') AND rel.relnamespace = 'efa'::regnamespace").fetchall()]
    check("introspect", "tables of efa have pins", True, "pins" in tables)


step("introspect", "browser tree", browser_tree)


def query_tool():
    check("rows", "query tool: count(*) from efa.pins", REF["pins"], conn.execute("select count(*) from efa.pins").fetchone()[0])
    expect_error("after_error", "query tool: select 1/0", "22012", lambda: conn.execute("select 1/0").fetchone()[0])
    check("after_error", "query tool: count(*) from efa.pins after select 1/0", REF["pins"], conn.execute("select count(*) from efa.pins").fetchone()[0])


step("rows", "query tool", query_tool)
conn.close()
