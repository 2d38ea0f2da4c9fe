import { ENGINE_TIMERS } from './pinned-settings.js';


/**
 * Which settings a served client may change, and to what: an allow-list of what readers' tools
 * set (psql, QGIS, DBeaver, JDBC, psycopg, GDAL), not a deny-list. Two kinds are pinned:
 *
 * - how statement text is read (standard_conforming_strings, escape_string_warning,
 *   backslash_quote; client_encoding to what PGlite converts): the guard parses every statement
 *   with PostgreSQL's defaults, so a client may set these only to those defaults, and the server
 *   reads exactly what the guard read;
 * - read-only (default_transaction_read_only, transaction_read_only, and their SET TRANSACTION /
 *   SESSION CHARACTERISTICS / BEGIN forms): on only, unless serve runs with --write.
 *
 * Role and session authorization are not on the list (PostgreSQL refuses them too: role.ts).
 */

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

const ALLOWED = new Set([
  'application_name', 'client_encoding', 'datestyle', 'intervalstyle', 'timezone', 'search_path', 'extra_float_digits',
  'bytea_output', 'statement_timeout', 'lock_timeout', 'synchronize_seqscans',
  'client_min_messages', 'lc_monetary', 'lc_numeric', 'lc_time', 'default_transaction_isolation', 'transaction_isolation',
  'default_transaction_deferrable', 'transaction_deferrable', 'xmloption', 'xmlbinary', 'jit', 'geqo', 'random_page_cost',
  'seq_page_cost', 'cpu_tuple_cost', 'cpu_index_tuple_cost', 'cpu_operator_cost', 'effective_cache_size', 'join_collapse_limit',
  'from_collapse_limit', 'cursor_tuple_fraction', 'plan_cache_mode', 'constraint_exclusion', 'default_text_search_config',
  'row_security', 'gin_fuzzy_search_limit', 'max_parallel_workers_per_gather',
  // Pinned below.
  'standard_conforming_strings', 'escape_string_warning', 'backslash_quote', 'default_transaction_read_only', 'transaction_read_only',
  ...ENGINE_TIMERS,
]);
/** The planner's enable_* switches: they change plans, never results or rights. */
const PLANNER_SWITCH = /^enable_[a-z_]+$/;

const TRUE_VALUES = new Set(['on', 'true', 'yes', '1']);
const isTrue = (value: string | undefined): boolean => value !== undefined && TRUE_VALUES.has(value.trim().toLowerCase());

/** How the text-reading settings must stay: the value the guard parses with. */
const TEXT_READING = new Map<string, (value: string | undefined) => boolean>([
  ['standard_conforming_strings', isTrue],
  ['escape_string_warning', isTrue],
  ['backslash_quote', (value) => value?.trim().toLowerCase() === 'safe_encoding'],
]);
const READ_ONLY = new Set(['default_transaction_read_only', 'transaction_read_only']);

/** A constant's value as text (`'off'`, `off`, `0`, `true`), or undefined for anything else. */
export function constantText(node: unknown): string | undefined {
  const constant = isNode(node) ? node['A_Const'] : undefined;
  if (!isNode(constant)) return undefined;
  if (isNode(constant['sval'])) return String(constant['sval']['sval'] ?? '');
  if (isNode(constant['ival'])) return String(constant['ival']['ival'] ?? 0);
  if (isNode(constant['fval'])) return String(constant['fval']['fval'] ?? '');
  if (isNode(constant['boolval'])) return constant['boolval']['boolval'] === true ? 'true' : 'false';
  return undefined;
}

/** Why a transaction option list (BEGIN, SET TRANSACTION, SESSION CHARACTERISTICS) is refused, or undefined. */
export function checkTransactionOptions(options: unknown, write: boolean): string | undefined {
  if (write) return undefined;
  for (const option of Array.isArray(options) ? options : []) {
    const element = isNode(option) ? option['DefElem'] : undefined;
    if (isNode(element) && element['defname'] === 'transaction_read_only' && !isTrue(constantText(element['arg']))) {
      return 'READ WRITE is refused: the database is served read-only (serve --write allows changing rows)';
    }
  }
  return undefined;
}

/** A zero duration as PostgreSQL reads one (0, '0', '0s', '0 ms'): the only value a timer that fires inside the engine may take. */
const isZero = (value: string | undefined): boolean => value !== undefined && /^\s*0+(\.0*)?\s*(us|ms|s|min|h|d)?\s*$/i.test(value);

/**
 * Why `set_config(name, value, is_local)` is refused, or undefined: the same as SET `name` TO
 * `value`, so the name and the value must be constants (pg_dump and pgAdmin send them so).
 */
export function checkSetConfig(args: unknown, write: boolean): string | undefined {
  const [name, value] = (Array.isArray(args) ? args : []).map((arg: unknown) => {
    // 'x'::text is a constant too.
    const cast = isNode(arg) && isNode(arg['TypeCast']) ? arg['TypeCast']['arg'] : arg;
    return { node: cast, text: constantText(cast) };
  });
  if (name?.text === undefined || value?.text === undefined) {
    return 'set_config() is served with a constant setting name and value only (as SET takes them)';
  }
  return checkSetting({ kind: 'VAR_SET_VALUE', name: name.text, args: [value.node] }, write);
}

/** Why a SET / RESET statement is refused, or undefined. */
export function checkSetting(body: Node, write: boolean): string | undefined {
  const kind = String(body['kind'] ?? '');
  const name = typeof body['name'] === 'string' ? body['name'].toLowerCase() : '';
  // RESET ALL gives every setting its reset value: read-only's is on (pinned-settings.ts); the role is left alone.
  if (kind === 'VAR_RESET_ALL') return undefined;
  if (kind === 'VAR_SET_MULTI') return checkTransactionOptions(body['args'], write);
  if (!ALLOWED.has(name) && !PLANNER_SWITCH.test(name)) {
    if (name === 'role' || name === 'session_authorization') return `changing ${name} is refused: a served client keeps the reader role`;
    return `SET ${name} is refused: a served client may change the settings a reader needs (DateStyle, TimeZone, search_path, application_name, extra_float_digits, IntervalStyle, bytea_output, statement_timeout, the planner's, …; docs/analysts/serve.md lists them)`;
  }
  const values = (Array.isArray(body['args']) ? body['args'] : []).map(constantText);
  // DEFAULT and RESET give the reset value, FROM CURRENT the current one: the pinned defaults, read-only on.
  if (kind !== 'VAR_SET_VALUE') return undefined;
  const given = values[0];
  if ((ENGINE_TIMERS as readonly string[]).includes(name) && !isZero(given)) {
    return `SET ${name} is refused except to 0: its timer would fire inside the embedded engine every client shares and stop it (serve ends idle clients itself; statement_timeout is honoured)`;
  }
  const pinned = TEXT_READING.get(name);
  if (pinned !== undefined && !pinned(given)) {
    return `SET ${name} is refused except to its default: it changes how statement text is read, and serve reads every statement as the server does`;
  }
  if (READ_ONLY.has(name) && !write && !isTrue(given)) {
    return `${name} can only be on: the database is served read-only (serve --write allows changing rows)`;
  }
  if (name === 'client_encoding') {
    for (const value of values) {
      const why = value === undefined ? undefined : checkEncoding(value);
      if (why !== undefined) return `${why}; keep UTF8 and convert in the client`;
    }
  }
  return undefined;
}

/** Client encodings PGlite converts: UTF8 (and SQL_ASCII, which converts nothing). Measured: after LATIN1 PGlite answered nobody. */
const ENCODINGS = new Set(['utf8', 'unicode', 'sqlascii']);

/**
 * An encoding name as PostgreSQL's clean_encoding_name leaves it: every character but ASCII letters
 * and digits dropped, lower case. 'utf-8', UTF8, utf_8 and asyncpg's quoted `'utf-8'` are all `utf8`.
 */
export const cleanEncodingName = (value: string): string => value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

/** Why a client_encoding is refused, or undefined; the name is cleaned here (cleanEncodingName), for every caller. */
export function checkEncoding(value: string): string | undefined {
  if (ENCODINGS.has(cleanEncodingName(value))) return undefined;
  return `client_encoding ${JSON.stringify(value.slice(0, 40))} is not supported: the embedded database converts only UTF8`;
}
