import { loadModule, parseSync } from 'libpg-query';

/**
 * What a served client may send, decided on the statement's parse tree (PostgreSQL's own parser,
 * compiled to WebAssembly by libpg-query), never on its text: comments, quoting, `U&"…"`
 * identifiers and several statements in one message all come out as the server would read them.
 *
 * Why a second line of defence beside the privileges of the reader role: PGlite is one session whose
 * authenticated user is the superuser `postgres`, so the role a client runs as is a session setting.
 * PostgreSQL lets that session go back to its authenticated user (`SET SESSION AUTHORIZATION
 * postgres`, `RESET SESSION AUTHORIZATION`, `DISCARD ALL`); those statements are the one way out
 * of the reader role (`set_config` and every procedural language are revoked from PUBLIC), and only
 * this check can refuse them.
 */

let loaded: Promise<void> | undefined;

/** Loads the parser once; `refusal` needs it. */
export function loadGuard(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

/** Settings that choose who the session is; changing them is changing privileges. */
const IDENTITY_SETTINGS = new Set(['role', 'session_authorization', 'is_superuser']);

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
]);

/** Added with `--write`: changing rows of efa's tables (the role's privileges say which). */
const WRITE_STATEMENTS = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/** The server-side large-object functions (`lo_create`, `lo_import`, `lowrite`, …). */
const LARGE_OBJECT_FUNCTION = /^(lo_[a-z0-9_]+|lo(open|close|read|write|creat|create|import|export|unlink|seek|tell|truncate))$/;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every object in the tree, depth first (the parse tree is plain JSON). */
function* walk(value: unknown): Generator<Node> {
  if (Array.isArray(value)) {
    for (const item of value) yield* walk(item);
  } else if (isNode(value)) {
    yield value;
    for (const child of Object.values(value)) yield* walk(child);
  }
}

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
}

/**
 * Whether `sql` (one simple-query or Parse message, possibly several statements) may be run by a
 * served client. `write` adds the row-changing statements `--write` allows.
 */
export function checkStatement(sql: string, write: boolean): GuardVerdict {
  if (sql.trim() === '') return { parameters: 0 };
  let tree: unknown;
  try {
    tree = parseSync(sql);
  } catch (e) {
    // PostgreSQL's own parser refused it too; say so rather than pass on what was not understood.
    return { refused: `efa-sync serve: ${e instanceof Error ? e.message : String(e)}`, parameters: 0 };
  }
  let parameters = 0;
  for (const node of walk(tree)) {
    const param = node['ParamRef'];
    if (isNode(param) && typeof param['number'] === 'number') parameters = Math.max(parameters, param['number']);
  }
  const statements = isNode(tree) && Array.isArray(tree['stmts']) ? tree['stmts'] : [];
  for (const entry of statements) {
    const stmt = isNode(entry) ? entry['stmt'] : undefined;
    const kind = isNode(stmt) ? (Object.keys(stmt)[0] ?? '') : '';
    const body = isNode(stmt) ? stmt[kind] : undefined;
    const why = refuseStatement(kind, isNode(body) ? body : {}, write);
    if (why !== undefined) return { refused: `efa-sync serve: ${why}`, parameters };
  }
  for (const node of walk(tree)) {
    const call = node['FuncCall'];
    if (!isNode(call)) continue;
    const name = functionName(call);
    if (name === 'set_config') {
      return { refused: 'efa-sync serve: set_config() is refused (use SET for settings; the role cannot be changed)', parameters };
    }
    // Large objects are stored in the database by any role, read-only setting or not (after a SET).
    if (!write && LARGE_OBJECT_FUNCTION.test(name)) {
      return { refused: `efa-sync serve: ${name}() is refused: large objects are writes, and the database is served read-only`, parameters };
    }
  }
  return { parameters };
}

function refuseStatement(kind: string, body: Node, write: boolean): string | undefined {
  if (kind === 'VariableSetStmt' || kind === 'VariableShowStmt') {
    const name = typeof body['name'] === 'string' ? body['name'].toLowerCase() : '';
    if (kind === 'VariableSetStmt' && IDENTITY_SETTINGS.has(name)) return `changing ${name} is refused: a served client keeps the reader role`;
    return undefined;
  }
  if (kind === 'DiscardStmt' && body['target'] === 'DISCARD_ALL') {
    return 'DISCARD ALL is refused (it resets the session authorization); DISCARD PLANS, SEQUENCES and TEMP are allowed';
  }
  if (kind === 'CopyStmt' && (body['is_program'] === true || typeof body['filename'] === 'string')) {
    return `COPY ${body['is_program'] === true ? 'to or from a program' : 'to or from a server file'} is refused: use COPY … TO STDOUT (psql \\copy)`;
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
