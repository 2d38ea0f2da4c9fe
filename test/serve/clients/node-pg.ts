import pg from 'pg';
import { asciiJson, Reference, type Aspect, type Check } from './results.js';

/*
 * node `pg` (the project's own dependency) against `efa-sync serve`, in a process of its own: on a wire that
 * goes wrong pg can throw from its socket handler, which must not take the test runner with it. Queries are
 * queued on one client without waiting, as an application does, and each answer is checked. One JSON line
 * per check on stdout; `node --import tsx node-pg.ts <port>` with the reference in $EFA_CLIENTS_REFERENCE.
 */

const port = Number(process.argv[2]);
const ref = Reference.parse(JSON.parse(process.env['EFA_CLIENTS_REFERENCE'] ?? '{}'));
const config: pg.ClientConfig = { host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 20_000 };

function emit(aspect: Aspect, check: string, expected: unknown, got: unknown): void {
  const [e, g] = [String(expected), String(got)];
  const line: Check = { aspect, check, ok: e === g, expected: e, got: g };
  process.stdout.write(`${asciiJson(line)}\n`);
}

const described = (e: unknown): string => `error ${(e as { code?: string }).code ?? ''} ${(e as Error).message}`;

/** The five checked queries, as [text, values, expected]; a value makes pg use Parse/Bind/Execute. */
function fiveQueries(extended: boolean): [string, string, unknown[] | undefined, unknown][] {
  const v = extended ? [1] : undefined;
  const where = extended ? ' where $1::int = 1' : '';
  return [
    ["select 'A'", `select 'A' as v${where}`, v, 'A'],
    ["select 'B'", `select 'B' as v${where}`, v, 'B'],
    ["select 'C'", `select 'C' as v${where}`, v, 'C'],
    ['count(*) from efa.pins', `select count(*)::int as v from efa.pins${where}`, v, ref.pins],
    ['a stop name with an umlaut', `select name as v from (select name from efa.stops where name like '%ü%' order by stop_id limit 1) s${where}`, v, ref.umlaut],
  ];
}

/** An error, then the five queries, all sent at once on one client; every answer checked. */
async function queuedAfterError(client: pg.Client, extended: boolean): Promise<void> {
  const how = extended ? 'with parameters (extended protocol)' : 'simple protocol';
  const failing = client.query(extended ? 'select 1/$1::int as v' : 'select 1/0 as v', extended ? [0] : undefined);
  const queued = fiveQueries(extended).map(([name, text, values, expected]) => ({ name, expected, answer: client.query<{ v: unknown }>(text, values) }));
  const error = await failing.then(
    () => 'no error',
    (e: { code?: string }) => e.code ?? described(e),
  );
  emit('after_error', `${how}: select 1/0: SQLSTATE`, '22012', error);
  for (const q of queued) {
    const got = await q.answer.then(
      (r) => (r.rows.length === 1 ? r.rows[0]?.v : `${r.rows.length} rows`),
      (e: unknown) => described(e),
    );
    emit('after_error', `${how}: ${q.name} queued after select 1/0`, q.expected, got);
  }
}

async function main(): Promise<void> {
  const client = new pg.Client(config);
  // An 'error' event without a listener would end this process before the checks are printed.
  client.on('error', (e) => emit('after_error', 'the client stays usable: no error event', 'no error event', described(e)));
  try {
    await client.connect();
    emit('connect', 'connects; select current_user', 'efa_serve', (await client.query<{ u: string }>('select current_user as u')).rows[0]?.u);
  } catch (e) {
    emit('connect', 'connects', 'connected', described(e));
    return;
  }
  for (const [name, text, values, expected] of fiveQueries(true)) {
    emit('rows', name, expected, await client.query<{ v: unknown }>(text, values).then((r) => r.rows[0]?.v, described));
  }
  await queuedAfterError(client, false);
  await queuedAfterError(client, true);
  await client.end().catch(() => undefined);

  const pool = new pg.Pool({ ...config, max: 1 });
  pool.on('error', (e) => emit('pool_cursor', 'pool: no error event', 'no error event', described(e)));
  try {
    const got: unknown[] = [];
    for (let i = 1; i <= 10; i++) {
      // a named query: pg prepares it once per connection and binds it each time after
      const r = await pool.query<{ d: number; n: number }>({ name: 'efa-twice', text: 'select $1::int * 2 as d, count(*)::int as n from efa.pins', values: [i] }).then((r) => r.rows[0], described);
      got.push(typeof r === 'string' ? r : `${r?.d}/${r?.n}`);
      if (i === 5) await pool.query('select 1/0').catch(() => undefined); // an error on the pooled connection midway
    }
    const expected = Array.from({ length: 10 }, (_, k) => `${2 * (k + 1)}/${ref.pins}`);
    emit('pool_cursor', 'pool of one: a named query run 10 times, an error after the 5th: each answer', expected.join(','), got.join(','));
  } finally {
    await pool.end().catch(() => undefined);
  }
}

await main().catch((e: unknown) => emit('connect', 'the program ends without an exception', 'no exception', described(e)));
