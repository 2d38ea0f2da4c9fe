"""What every Python client program of the conformance suite shares: the reference psql gave, and checks
printed as JSON lines ({"aspect", "check", "ok", "expected", "got"}) for test/serve/clients/clients.test.ts.
Run with Debian's /usr/bin/python3, which has the drivers from Debian's packages."""
import json
import os
import sys

REF = json.loads(os.environ["EFA_CLIENTS_REFERENCE"])
PORT = int(sys.argv[1])
HOST = "127.0.0.1"
UMLAUT_SQL = "select name from efa.stops where name like '%ü%' order by stop_id limit 1"
KEYS_SQL = "select pin_key from efa.pins order by pin_key"


def emit(aspect, check, ok, expected, got):
    # ensure_ascii: the harness reads ASCII whatever this process's locale is
    print(json.dumps({"aspect": aspect, "check": check, "ok": bool(ok), "expected": str(expected), "got": str(got)}), flush=True)


def check(aspect, name, expected, got):
    emit(aspect, name, str(expected) == str(got), expected, got)


def state_of(error):
    """The SQLSTATE of a driver's exception (psycopg2: pgcode, psycopg 3: sqlstate, asyncpg: sqlstate)."""
    error = getattr(error, "orig", None) or error  # SQLAlchemy wraps the driver's exception
    return getattr(error, "pgcode", None) or getattr(error, "sqlstate", None) or getattr(getattr(error, "diag", None), "sqlstate", None)


def described(error):
    return "error %s %s" % (state_of(error), str(error).strip().splitlines()[0] if str(error).strip() else repr(error))


def attempt(fn):
    """fn's value, or what went wrong instead: so each query is its own check."""
    try:
        return fn()
    except Exception as error:  # a wrong answer of any kind is a result here
        return described(error)


def expect_error(aspect, name, states, fn):
    try:
        got = fn()
        check(aspect, name + ": SQLSTATE", states, "no error: %s" % (got,))
    except Exception as error:
        state = state_of(error)
        check(aspect, name + ": SQLSTATE", states, states if state and state in states.split("|") else described(error))


def step(aspect, name, fn):
    """A step that raises is a failed check of its aspect, with what a user would see."""
    try:
        fn()
    except Exception as error:
        emit(aspect, name + ": no exception", False, "no exception", described(error))


def five_queries(aspect, suffix, one):
    """The acceptance's five checked queries: three literals, the count psql gives, a name with an umlaut."""
    check(aspect, "select 'A'" + suffix, "A", attempt(lambda: one("select 'A'")))
    check(aspect, "select 'B'" + suffix, "B", attempt(lambda: one("select 'B'")))
    check(aspect, "select 'C'" + suffix, "C", attempt(lambda: one("select 'C'")))
    check(aspect, "count(*) from efa.pins" + suffix, REF["pins"], attempt(lambda: one("select count(*) from efa.pins")))
    check(aspect, "a stop name with an umlaut" + suffix, REF["umlaut"], attempt(lambda: one(UMLAUT_SQL)))


def keys_digest(chunks):
    """(row count, md5 of the keys joined by commas) of an iterable of row chunks: what psql's reference adds up to."""
    import hashlib

    md5 = hashlib.md5()
    n = 0
    for chunk in chunks:
        for row in chunk:
            md5.update(((b"," if n else b"") + str(row[0]).encode("utf-8")))
            n += 1
    return n, md5.hexdigest()
