import { loadModule, parseSync } from 'libpg-query';
import { REVOKED_FUNCTIONS } from './role.js';
import { checkSetConfig, checkSetting, checkTransactionOptions } from './settings.js';

/**
 * What a served client may send, decided on the statement's parse tree (PostgreSQL's own parser,
 * compiled to WebAssembly by libpg-query), never on its text: comments, quoting, `U&"…"`
 * identifiers and several statements in one message all come out as the server would read them.
 *
 * This is defence in depth, and a clearer error: what a client may do is decided by PostgreSQL's
 * own privilege checks on the role it runs as (role.ts), which hold with this check switched off
 * (test/serve/attacks.test.ts). The parser reads a statement as the server does because the
 * settings that change how text is read can only be set to the defaults it parses with (settings.ts).
 */

let loaded: Promise<void> | undefined;

/** Loads the parser once; `refusal` needs it. */
export function loadGuard(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

/** Statements a reader needs: queries, cursors, settings, transactions, prepared statements. */
const READ_STATEMENTS = new Set([
  'SelectStmt',
  'VariableSetStmt',
  'VariableShowStmt',
  'TransactionStmt',
  'DeclareCursorStmt',
  'FetchStmt',
  'ClosePortalStmt',
  'ExplainStmt',
  'CopyStmt',
  'PrepareStmt',
  'ExecuteStmt',
  'DeallocateStmt',
  'DiscardStmt',
  'ListenStmt',
  'UnlistenStmt',
  'LockStmt',
]);

/** Added with `--write`: changing rows of efa's tables (the role's privileges say which). */
const WRITE_STATEMENTS = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/** The server-side large-object functions (`lo_create`, `lo_import`, `lowrite`, …). */
const LARGE_OBJECT_FUNCTION = /^(lo_[a-z0-9_]+|lo(open|close|read|write|creat|create|import|export|unlink|seek|tell|truncate))$/;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Bounds on the work one statement may cost the guard (and PGlite's recursive planner after it). */
export const MAX_TREE_NODES = 100_000;
export const MAX_TREE_DEPTH = 1_000;
/** Statement text longer than this is refused before parsing (and before it is copied to the parser's thread, guard-pool.ts). */
export const MAX_STATEMENT_CHARS = 1_000_000;

/** SQLSTATE statement_too_complex: the parser could not read the statement within its stack or its deadline (guard-pool.ts). */
export const TOO_COMPLEX = '54001';

/** Why a tree is too large to check, or its objects in depth-first order: an explicit stack, never recursion. */
function nodesOf(tree: unknown): Node[] | string {
  const nodes: Node[] = [];
  const stack: [unknown, number][] = [[tree, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (++visited > MAX_TREE_NODES * 4) return `the statement is too large to check (over ${MAX_TREE_NODES} parse-tree nodes)`;
    if (depth > MAX_TREE_DEPTH) return `the statement is nested too deeply (over ${MAX_TREE_DEPTH} parse-tree levels)`;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], depth + 1]);
    } else if (isNode(value)) {
      nodes.push(value);
      if (nodes.length > MAX_TREE_NODES) return `the statement is too large to check (over ${MAX_TREE_NODES} parse-tree nodes)`;
      const children = Object.values(value);
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], depth + 1]);
    }
  }
  return nodes;
}

export { checkEncoding } from './settings.js';

/** Statement and portal names the proxy gives clients' protocol-level statements (`efa<client>_<name>`). */
const RESERVED_NAME = /^efa[0-9]+_/i;

/** The last part of a function's (possibly schema-qualified) name, as the parser spelled it. */
function functionName(call: Node): string {
  const parts = Array.isArray(call['funcname']) ? call['funcname'] : [];
  const last: unknown = parts[parts.length - 1];
  const inner = isNode(last) && isNode(last['String']) ? last['String']['sval'] : undefined;
  return typeof inner === 'string' ? inner.toLowerCase() : '';
}

export interface GuardVerdict {
  /** Why the message is refused; undefined when it may go to the database. */
  readonly refused?: string;
  /** The highest `$n` the statements use (a rewritten Parse message must accept as many). */
  readonly parameters: number;
  /**
   * What to send instead of a simple-query message the reader role cannot run as written but can
   * run in an equivalent form (DISCARD ALL). Only for a simple query; `tag` is the command tag the
   * client expects for it.
   */
  readonly rewrite?: { readonly sql: string; readonly tag: string };
  /** The SQLSTATE the refusal is raised with when it is not 42501 (insufficient_privilege). */
  readonly code?: string;
  /**
   * The parser failed other than on the statement's grammar (its WebAssembly stack, a trap): its
   * instance may be left broken (a later parse trapped or spun for good), so it is replaced.
   */
  readonly parserBroken?: true;
}

/**
 * DISCARD ALL as the reader role may run it: everything DISCARD ALL resets but the session's
 * authorization, which the lock keeps (role.ts) and RESET ALL leaves alone. Read-only comes back on
 * (its reset value, pinned-settings.ts).
 */
export const DISCARD_ALL_AS_READER =
  'RESET ALL; DEALLOCATE ALL; CLOSE ALL; UNLISTEN *; SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD PLANS; DISCARD SEQUENCES; DISCARD TEMP';

/** Errors of PostgreSQL's lexer and grammar: the same for the server, which reports them with their position. */
const GRAMMAR_FILES = new Set(['scan.l', 'gram.y']);

/**
 * Whether `sql` (one simple-query or Parse message, possibly several statements) may be run by a
 * served client. `write` adds the row-changing statements `--write` allows.
 */
export function checkStatement(sql: string, write: boolean): GuardVerdict {
  try {
    return verdictOf(sql, write);
  } catch (e) {
    // Whatever the parser or the walk throw (a stack overflow included) refuses the statement, never the server.
    return { refused: `efa-sync serve: the statement could not be checked (${e instanceof Error ? e.message : String(e)})`, parameters: 0 };
  }
}

/** The verdict on `sql` that needs no parse (empty, or too long to parse), or undefined. */
export function verdictWithoutParse(sql: string): GuardVerdict | undefined {
  if (sql.trim() === '') return { parameters: 0 };
  if (sql.length > MAX_STATEMENT_CHARS) return { refused: `efa-sync serve: statements over ${MAX_STATEMENT_CHARS} characters are refused`, parameters: 0 };
  return undefined;
}

/** The refusal of a statement the parser could not read: `why` says what stopped it. */
export function tooComplex(why: string): GuardVerdict {
  return { refused: `efa-sync serve: the statement is too complex to check (${why}): split or simplify it`, parameters: 0, code: TOO_COMPLEX };
}

function verdictOf(sql: string, write: boolean): GuardVerdict {
  const early = verdictWithoutParse(sql);
  if (early !== undefined) return early;
  let tree: unknown;
  try {
    tree = parseSync(sql);
  } catch (e) {
    // A syntax error: the server's parser (PostgreSQL 18 as here) refuses the same text, with its
    // SQLSTATE (42601) and position, before anything runs. Any other failure (the parser's stack or
    // memory, which the server's may not share) is refused here.
    const details = (e as { sqlDetails?: { fileName?: string; message?: string } }).sqlDetails;
    if (GRAMMAR_FILES.has(details?.fileName ?? '') && !/memory|stack/i.test(details?.message ?? '')) return { parameters: 0 };
    const refused = tooComplex(`the parser failed: ${e instanceof Error ? e.message : String(e)}`);
    // An error the parser reported (its own stack-depth check) leaves it sound; one it threw past itself does not.
    return details === undefined ? { ...refused, parserBroken: true } : refused;
  }
  const nodes = nodesOf(tree);
  if (typeof nodes === 'string') return { refused: `efa-sync serve: ${nodes}`, parameters: 0 };
  let parameters = 0;
  for (const node of nodes) {
    const param = node['ParamRef'];
    if (isNode(param) && typeof param['number'] === 'number') parameters = Math.max(parameters, param['number']);
  }
  const statements = isNode(tree) && Array.isArray(tree['stmts']) ? tree['stmts'] : [];
  let rewrite: GuardVerdict['rewrite'];
  for (const entry of statements) {
    const stmt = isNode(entry) ? entry['stmt'] : undefined;
    const kind = isNode(stmt) ? (Object.keys(stmt)[0] ?? '') : '';
    const body = isNode(stmt) ? stmt[kind] : undefined;
    if (kind === 'DiscardStmt' && isNode(body) && body['target'] === 'DISCARD_ALL') {
      if (statements.length > 1) return { refused: 'efa-sync serve: DISCARD ALL must be sent on its own', parameters };
      rewrite = { sql: DISCARD_ALL_AS_READER, tag: 'DISCARD ALL' };
      continue;
    }
    const why = refuseStatement(kind, isNode(body) ? body : {}, write);
    if (why !== undefined) return { refused: `efa-sync serve: ${why}`, parameters };
  }
  for (const node of nodes) {
    const call = node['FuncCall'];
    if (!isNode(call)) continue;
    const name = functionName(call);
    if (name === 'set_config') {
      const why = checkSetConfig(call['args'], write);
      if (why !== undefined) return { refused: `efa-sync serve: ${why}`, parameters };
      continue;
    }
    if (REVOKED_FUNCTIONS.includes(name)) {
      return { refused: `efa-sync serve: ${name}() is refused: a served client may not run it (docs/analysts/serve.md says why)`, parameters };
    }
    // Large objects are stored in the database by any role, read-only setting or not; revoked too (role.ts).
    if (LARGE_OBJECT_FUNCTION.test(name)) {
      return { refused: `efa-sync serve: ${name}() is refused: large objects are writes outside the tables serve publishes`, parameters };
    }
  }
  return rewrite === undefined ? { parameters } : { parameters, rewrite };
}

/** PostgreSQL's lock modes (lockdefs.h): AccessShareLock is what SELECT takes. */
const ACCESS_SHARE_LOCK = 1;

function refuseStatement(kind: string, body: Node, write: boolean): string | undefined {
  if (kind === 'VariableShowStmt') return undefined;
  if (kind === 'VariableSetStmt') return checkSetting(body, write);
  if (kind === 'TransactionStmt') {
    const why = checkTransactionOptions(body['options'], write);
    if (why !== undefined) return why;
  }
  if (kind === 'LockStmt' && body['mode'] !== ACCESS_SHARE_LOCK) {
    return 'LOCK is refused except IN ACCESS SHARE MODE (the lock a SELECT takes): the database is served for reading';
  }
  if ((kind === 'PrepareStmt' || kind === 'ExecuteStmt' || kind === 'DeallocateStmt') && typeof body['name'] === 'string' && RESERVED_NAME.test(body['name'])) {
    return `prepared statement names beginning "efa<number>_" are reserved for the clients' own protocol-level statements`;
  }
  if (kind === 'CopyStmt' && (body['is_program'] === true || typeof body['filename'] === 'string')) {
    return `COPY ${body['is_program'] === true ? 'to or from a program' : 'to or from a server file'} is refused: use COPY … TO STDOUT (psql \\copy)`;
  }
  if (kind === 'CopyStmt' && body['is_from'] === true) {
    return 'COPY FROM is refused: rows are changed with INSERT (serve --write)';
  }
  if (READ_STATEMENTS.has(kind) || (write && WRITE_STATEMENTS.has(kind))) return undefined;
  // `CreateFunctionStmt` -> `CREATE FUNCTION`: the words the client wrote, near enough.
  const what = kind
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
  return write
    ? `${what} statements are refused: serve --write allows reading and changing rows, not DDL, roles or server commands`
    : `${what} statements are refused: the database is served read-only (serve --write allows changing rows)`;
}
