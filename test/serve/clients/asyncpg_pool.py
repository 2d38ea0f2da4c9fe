"""asyncpg against `efa-sync serve`: connect (it sends client_encoding 'utf-8'), a pool's acquire and release
(release resets the connection: RESET ALL and more), a prepared statement, a cursor in a transaction. One JSON
line per check (conformance_checks.py)."""
import asyncio

from conformance_checks import HOST, KEYS_SQL, PORT, REF, check, described, emit, expect_error, five_queries, keys_digest

import asyncpg

ARGS = dict(host=HOST, port=PORT, user="postgres", database="postgres", ssl=False)


async def attempt(coro):
    try:
        return await coro
    except Exception as error:
        return described(error)


async def five(aspect, suffix, conn):
    values = {}
    for sql in ["select 'A'", "select 'B'", "select 'C'", "select count(*) from efa.pins", "select name from efa.stops where name like '%ü%' order by stop_id limit 1"]:
        values[sql] = await attempt(conn.fetchval(sql))
    five_queries(aspect, suffix, lambda sql: values[sql] if sql in values else next(v for k, v in values.items() if k.startswith(sql[:20])))


async def main():
    try:
        conn = await asyncpg.connect(**ARGS)
    except Exception as error:
        emit("connect", "connects", False, "connected", described(error))
        return
    check("connect", "connects; select current_user", "efa_serve", await attempt(conn.fetchval("select current_user")))
    await five("rows", "", conn)

    try:
        await conn.fetchval("select 1/0")
        check("after_error", "select 1/0: SQLSTATE", "22012", "no error")
    except Exception as error:
        check("after_error", "select 1/0: SQLSTATE", "22012", getattr(error, "sqlstate", described(error)))
    await five("after_error", " after select 1/0", conn)

    try:
        stmt = await conn.prepare("select $1::int * 2, count(*) from efa.pins")
        got = [tuple(await stmt.fetchrow(i)) for i in range(1, 11)]
        check("pool_cursor", "prepared statement run 10 times: each answer", [(2 * i, REF["pins"]) for i in range(1, 11)], got)
        async with conn.transaction():
            cur = await conn.cursor(KEYS_SQL)
            chunks = []
            while chunk := await cur.fetch(500):
                chunks.append(chunk)
        n, digest = keys_digest(chunks)
        check("pool_cursor", "cursor, fetch(500): rows", REF["pins"], n)
        check("pool_cursor", "cursor, fetch(500): md5 of the keys in order", REF["keysMd5"], digest)
    except Exception as error:
        emit("pool_cursor", "prepared statement and cursor: no exception", False, "no exception", described(error))
    await conn.close()

    try:
        pool = await asyncpg.create_pool(min_size=1, max_size=1, **ARGS)
        initial = None
        for i in range(1, 4):
            async with pool.acquire() as c:  # one connection: each release resets it, each acquire reuses it
                shown = await attempt(c.fetchval("show application_name"))
                if initial is None:
                    initial = shown
                else:
                    check("pool_cursor", "acquire %d: the last release reset application_name" % i, initial, shown)
                await c.execute("set application_name = 'efa-pooled'")
                check("pool_cursor", "acquire %d: select $1 * 2" % i, 2 * i, await attempt(c.fetchval("select $1::int * 2", i)))
        async with pool.acquire() as c:
            await attempt(c.fetchval("select 1/0"))  # released after an error
        async with pool.acquire() as c:
            check("pool_cursor", "after 3 releases and one after an error: count(*) from efa.pins", REF["pins"], await attempt(c.fetchval("select count(*) from efa.pins")))
        await pool.close()
    except Exception as error:
        emit("pool_cursor", "pool acquire and release: no exception", False, "no exception", described(error))


asyncio.run(main())
