import { ConfigError, errorText } from '../errors.js';
import type { ExportRelation } from './relation.js';

/**
 * `--where`: a condition on the rows of the exported relation, decided on its parse tree
 * (PostgreSQL's own parser, libpg-query, as `serve` uses it), never on its text. The condition is
 * parsed inside the very text the export runs (`SELECT 1 FROM efa_where WHERE (<condition>\n)`, the
 * line break ending any `--` comment), and accepted only when that is still one plain SELECT whose
 * only part given is the WHERE clause, and the clause holds nothing but columns of the relation,
 * constants, operators, casts to built-in types, CASE/COALESCE and the functions listed below. So no
 * subquery, no other table, no function with an effect (pg_read_file, pg_sleep, set_config, dblink,
 * lo_import…), no second statement. The export runs in a READ ONLY transaction besides.
 */

const MAX_LENGTH = 4_000;
/** Parse-tree nodes walked at most: a bound on the work a hostile condition can ask for. */
const MAX_NODES = 5_000;

/** Plain functions without effects that filters use; everything else is refused by name. */
const FUNCTIONS = new Set(
  (
    'lower upper length char_length character_length octet_length trim btrim ltrim rtrim substr substring position strpos replace concat left right ' +
    'starts_with split_part abs round floor ceil ceiling trunc sign mod power sqrt now date_trunc date_part extract age to_char to_date to_timestamp ' +
    'make_date make_timestamp make_timestamptz timezone array_length cardinality array_position jsonb_typeof jsonb_array_length similar_to_escape ' +
    'st_intersects st_contains st_within st_covers st_coveredby st_overlaps st_touches st_crosses st_disjoint st_equals st_dwithin st_distance ' +
    'st_makeenvelope st_makepoint st_point st_setsrid st_transform st_geomfromtext st_geomfromgeojson st_buffer st_area st_length st_perimeter ' +
    'st_x st_y st_isempty st_isvalid st_geometrytype geometrytype st_srid st_npoints st_numgeometries st_xmin st_xmax st_ymin st_ymax st_centroid ' +
    'st_pointonsurface st_envelope'
  ).split(' '),
);

/** Parse-tree node types a condition may hold (the wrapper keys of libpg-query's JSON, all capitalised). */
const NODES = new Set([
  'BoolExpr',
  'A_Expr',
  'NullTest',
  'BooleanTest',
  'A_Const',
  'ColumnRef',
  'TypeCast',
  'FuncCall',
  'CoalesceExpr',
  'MinMaxExpr',
  'NullIfExpr',
  'CaseExpr',
  'CaseWhen',
  'A_ArrayExpr',
  'A_Indirection',
  'A_Indices',
  'List',
  'String',
  'Integer',
  'Float',
  'Boolean',
  'SQLValueFunction',
]);

const OPERATOR = /^[-+*/<>=~!@#%^&|`?]+$/;
const WORD_OPERATORS = new Set(['BETWEEN', 'NOT BETWEEN', 'BETWEEN SYMMETRIC', 'NOT BETWEEN SYMMETRIC']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const svals = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((n) => (isObject(n) && isObject(n['String']) ? String(n['String']['sval'] ?? '') : '\u0000')) : [];

function refuse(why: string): never {
  throw new ConfigError(`--where: ${why}`, 'where');
}

/** Checks one node of the condition; its children are walked by the caller. */
function checkNode(type: string, body: Json, columns: ReadonlySet<string> | undefined): void {
  if (!NODES.has(type)) refuse(`${type} is not allowed; a condition holds columns, constants, operators, casts and plain functions (no subquery, no other table)`);
  if (type === 'ColumnRef') {
    const fields = svals(body['fields']);
    const name = fields[0] ?? '';
    if (fields.length !== 1) refuse(`"${fields.join('.')}" is not a column of the relation: name its columns unqualified`);
    if (columns && !columns.has(name)) refuse(`"${name}" is not a column of the relation; its columns: ${[...columns].join(', ')}`);
  } else if (type === 'FuncCall') {
    const name = svals(body['funcname']);
    const bare = name.at(-1) ?? '';
    if ((name.length === 2 && name[0] !== 'pg_catalog') || name.length > 2 || !FUNCTIONS.has(bare)) {
      refuse(`function ${name.join('.')} is not allowed; allowed: ${[...FUNCTIONS].join(', ')}`);
    }
    for (const k of ['agg_star', 'agg_distinct', 'over', 'agg_filter', 'agg_order', 'func_variadic', 'agg_within_group']) {
      if (body[k]) refuse(`${bare}: aggregates, windows and VARIADIC are not allowed in a row condition`);
    }
  } else if (type === 'A_Expr') {
    const name = svals(body['name']);
    if (name.length !== 1 || !(OPERATOR.test(name[0] ?? '') || WORD_OPERATORS.has(name[0] ?? ''))) refuse(`operator ${name.join('.')} is not allowed (OPERATOR(schema.op) included)`);
  } else if (type === 'TypeCast') {
    const typeName = body['typeName'];
    const names = isObject(typeName) ? svals(typeName['names']) : [];
    if (names.length === 0 || names.length > 2 || (names.length === 2 && names[0] !== 'pg_catalog')) refuse(`a cast to ${names.join('.')} is not allowed: built-in types only`);
  }
}

/**
 * The condition as the export embeds it, once checked (against the relation's columns when `rel` is
 * given); a ConfigError naming --where and the part refused otherwise. `parse` is libpg-query's
 * parseSync, loaded by the caller.
 */
export function checkedWhere(condition: string, rel: ExportRelation | undefined, parse: (sql: string) => unknown): string {
  if (condition.trim() === '') refuse('empty; give a condition such as "name ILIKE \'%bahnhof%\'"');
  if (condition.length > MAX_LENGTH) refuse(`longer than ${MAX_LENGTH} characters`);
  if (condition.includes('\u0000')) refuse('holds a NUL character');
  const embedded = `(${condition}\n)`;
  let tree: unknown;
  try {
    tree = parse(`SELECT 1 FROM efa_where WHERE ${embedded}`);
  } catch (error) {
    refuse(`not a valid SQL condition (${errorText(error)})`);
  }
  const stmts = isObject(tree) && Array.isArray(tree['stmts']) ? tree['stmts'] : [];
  const stmt = stmts.length === 1 && isObject(stmts[0]) && isObject(stmts[0]['stmt']) ? stmts[0]['stmt'] : undefined;
  const select = stmt && isObject(stmt['SelectStmt']) ? stmt['SelectStmt'] : undefined;
  const allowedKeys = new Set(['targetList', 'fromClause', 'whereClause', 'limitOption', 'op']);
  if (!select || select['op'] !== 'SETOP_NONE' || Object.keys(select).some((k) => !allowedKeys.has(k)) || !Array.isArray(select['fromClause']) || select['fromClause'].length !== 1) {
    refuse('must be one condition, not a statement or a clause (no ;, UNION, ORDER BY, LIMIT, GROUP BY)');
  }
  // Without the relation (checked before the database is opened), any single column name passes here.
  const columns = rel ? new Set([...rel.columns.map((c) => c.name), ...(rel.geometry ? [rel.geometry.name] : [])]) : undefined;
  // Iterative, with a bound: a condition nested 10,000 deep neither overflows the stack nor takes long.
  const stack: unknown[] = [select['whereClause']];
  let seen = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    if (++seen > MAX_NODES) refuse(`more than ${MAX_NODES} parts; simplify it`);
    if (Array.isArray(value)) {
      stack.push(...(value as unknown[]));
      continue;
    }
    if (!isObject(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      if (/^[A-Z]/.test(key) && isObject(child)) checkNode(key, child, columns);
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return embedded;
}
