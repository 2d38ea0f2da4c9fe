import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/db/index.js';

/**
 * Everything a user or the code can observe of efa-sync's schemas, as a plain JSON-able object with
 * sorted keys: two databases that should be the same (one upgraded in place, one migrated from zero;
 * one whose views come from migrations, one whose views come from definitions) compare with
 * `expect(a).toEqual(b)` or, readably, `diffCatalogs(a, b)`.
 *
 * Nothing that differs between two equal databases is kept: no OIDs, no owners beyond what the ACLs
 * name, no row counts or sequence positions. Extension members (PostGIS) are left out, so a schema
 * PostGIS shares does not drag its thousands of functions in. Whitespace in view and function bodies
 * is collapsed, because a body rewritten with other indentation behaves the same.
 */
export interface CatalogColumn {
  /** 1-based, counting only live columns: `SELECT *` and COPY without a column list follow it. */
  readonly position: number;
  readonly type: string;
  readonly notNull: boolean;
  readonly default: string | null;
  /** '' none, 'a' ALWAYS, 'd' BY DEFAULT. */
  readonly identity: string;
  /** '' none, 's' stored generated column. */
  readonly generated: string;
}

export interface CatalogRelation {
  /** pg_class.relkind: r table, p partitioned table, v view, m materialized view, S sequence, f foreign. */
  readonly kind: string;
  /** p permanent, u unlogged. */
  readonly persistence: string;
  readonly options: readonly string[];
  readonly partitionKey: string | null;
  /** The parent of a partition, with its bound. */
  readonly partitionOf: string | null;
  readonly partitionBound: string | null;
  readonly columns: Record<string, CatalogColumn>;
}

export interface CatalogFunction {
  /** f function, p procedure, a aggregate, w window. */
  readonly kind: string;
  readonly result: string | null;
  /** pg_get_functiondef with whitespace collapsed (null for aggregates, which it cannot print). */
  readonly definition: string | null;
}

export interface Catalog {
  readonly schemas: readonly string[];
  /** 'schema.name' */
  readonly relations: Record<string, CatalogRelation>;
  /**
   * 'schema.table.constraint' → pg_get_constraintdef. Not the NOT NULL constraints PostgreSQL 18 (PGlite)
   * records in pg_constraint: PostgreSQL 15 has none, and the columns' notNull already says it.
   */
  readonly constraints: Record<string, string>;
  /** 'schema.index' → pg_get_indexdef */
  readonly indexes: Record<string, string>;
  /** 'schema.view' → pg_get_viewdef, whitespace collapsed (views and materialized views) */
  readonly views: Record<string, string>;
  /** 'schema.name(identity arguments)' */
  readonly functions: Record<string, CatalogFunction>;
  /** 'schema.table.trigger' → pg_get_triggerdef */
  readonly triggers: Record<string, string>;
  /** 'schema S', 'relation schema.name', 'column schema.name.col', 'function …', 'constraint …', 'trigger …' → text */
  readonly comments: Record<string, string>;
  /**
   * The same keys as comments (plus 'default schema kind') → sorted ACL items: the privileges in effect,
   * a NULL ACL read as the default it stands for (acldefault), so `REVOKE ALL … FROM PUBLIC` on an object
   * PUBLIC had no right on (an explicit owner-only ACL) equals the NULL pg_dump restores it as.
   */
  readonly grants: Record<string, readonly string[]>;
}

/** Collapses runs of whitespace: the same body indented otherwise is the same body. */
const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

const sorted = <T>(entries: Iterable<[string, T]>): Record<string, T> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Not a member of an extension (PostGIS installs into a schema of the database's choice). */
const notExtensionMember = (catalog: string, oid: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = ${sql.raw(`'${catalog}'::regclass`)} AND d.objid = ${oid} AND d.deptype = 'e')`;

export async function readCatalog(db: Db, schemas: readonly string[] = ['efa', 'efa_private', 'efa_partitions']): Promise<Catalog> {
  const k = db.kysely;
  const inSchemas = sql`n.nspname IN (${sql.join([...schemas])})`;
  const comments: [string, string][] = [];
  const grants: [string, string[]][] = [];
  const note = (key: string, comment: string | null, acl: string[] | null): void => {
    if (comment !== null) comments.push([key, comment]);
    if (acl !== null) grants.push([key, [...acl].sort()]);
  };

  const nsp = await sql<{ name: string; comment: string | null; acl: string[] | null }>`
    SELECT n.nspname AS name, obj_description(n.oid, 'pg_namespace') AS comment, coalesce(n.nspacl, acldefault('n', n.nspowner))::text[] AS acl
    FROM pg_namespace n WHERE ${inSchemas}`.execute(k);
  for (const s of nsp.rows) note(`schema ${s.name}`, s.comment, s.acl);

  const defaults = await sql<{ name: string; kind: string; acl: string[] }>`
    SELECT n.nspname AS name, a.defaclobjtype::text AS kind, a.defaclacl::text[] AS acl
    FROM pg_default_acl a JOIN pg_namespace n ON n.oid = a.defaclnamespace WHERE ${inSchemas}`.execute(k);
  for (const d of defaults.rows) note(`default ${d.name} ${d.kind}`, null, d.acl);

  const rels = await sql<{
    name: string; kind: string; persistence: string; options: string[] | null; part_key: string | null;
    parent: string | null; bound: string | null; comment: string | null; acl: string[] | null;
  }>`
    SELECT n.nspname || '.' || c.relname AS name, c.relkind::text AS kind, c.relpersistence::text AS persistence,
      c.reloptions AS options,
      CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS part_key,
      (SELECT pn.nspname || '.' || p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
         JOIN pg_namespace pn ON pn.oid = p.relnamespace WHERE i.inhrelid = c.oid AND c.relispartition) AS parent,
      CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound,
      obj_description(c.oid, 'pg_class') AS comment,
      coalesce(c.relacl, acldefault(CASE WHEN c.relkind = 'S' THEN 's' ELSE 'r' END::"char", c.relowner))::text[] AS acl
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${inSchemas} AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND ${notExtensionMember('pg_class', sql`c.oid`)}`.execute(k);

  const cols = await sql<{
    rel: string; name: string; position: number; type: string; not_null: boolean; def: string | null;
    identity: string; generated: string; comment: string | null; acl: string[] | null;
  }>`
    SELECT n.nspname || '.' || c.relname AS rel, a.attname AS name,
      (row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum))::int AS position,
      format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
      pg_get_expr(d.adbin, d.adrelid) AS def, a.attidentity::text AS identity, a.attgenerated::text AS generated,
      col_description(c.oid, a.attnum) AS comment, a.attacl::text[] AS acl
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE ${inSchemas} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
      AND ${notExtensionMember('pg_class', sql`c.oid`)}`.execute(k);
  const columnsOf = new Map<string, [string, CatalogColumn][]>();
  for (const c of cols.rows) {
    const list = columnsOf.get(c.rel) ?? [];
    list.push([c.name, { position: c.position, type: c.type, notNull: c.not_null, default: c.def, identity: c.identity, generated: c.generated }]);
    columnsOf.set(c.rel, list);
    note(`column ${c.rel}.${c.name}`, c.comment, c.acl);
  }
  const relations = sorted(
    rels.rows.map((r): [string, CatalogRelation] => {
      note(`relation ${r.name}`, r.comment, r.acl);
      return [r.name, {
        kind: r.kind, persistence: r.persistence, options: [...(r.options ?? [])].sort(), partitionKey: r.part_key,
        partitionOf: r.parent, partitionBound: r.bound, columns: sorted(columnsOf.get(r.name) ?? []),
      }];
    }),
  );

  const views = await sql<{ name: string; def: string }>`
    SELECT n.nspname || '.' || c.relname AS name, pg_get_viewdef(c.oid, true) AS def
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${inSchemas} AND c.relkind IN ('v', 'm') AND ${notExtensionMember('pg_class', sql`c.oid`)}`.execute(k);

  const cons = await sql<{ name: string; def: string; comment: string | null }>`
    SELECT n.nspname || '.' || coalesce(r.relname, '') || '.' || o.conname AS name, pg_get_constraintdef(o.oid) AS def,
      obj_description(o.oid, 'pg_constraint') AS comment
    FROM pg_constraint o JOIN pg_namespace n ON n.oid = o.connamespace LEFT JOIN pg_class r ON r.oid = o.conrelid
    WHERE ${inSchemas} AND o.contype <> 'n' AND ${notExtensionMember('pg_constraint', sql`o.oid`)}`.execute(k);
  for (const c of cons.rows) note(`constraint ${c.name}`, c.comment, null);

  const idx = await sql<{ name: string; def: string; comment: string | null }>`
    SELECT n.nspname || '.' || c.relname AS name, pg_get_indexdef(c.oid) AS def, obj_description(c.oid, 'pg_class') AS comment
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${inSchemas} AND ${notExtensionMember('pg_class', sql`i.indrelid`)}`.execute(k);
  for (const i of idx.rows) note(`index ${i.name}`, i.comment, null);

  const funcs = await sql<{ name: string; kind: string; result: string | null; def: string | null; comment: string | null; acl: string[] | null }>`
    SELECT n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name,
      p.prokind::text AS kind, pg_get_function_result(p.oid) AS result,
      CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END AS def,
      obj_description(p.oid, 'pg_proc') AS comment, coalesce(p.proacl, acldefault('f', p.proowner))::text[] AS acl
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE ${inSchemas} AND ${notExtensionMember('pg_proc', sql`p.oid`)}`.execute(k);
  for (const f of funcs.rows) note(`function ${f.name}`, f.comment, f.acl);

  const trig = await sql<{ name: string; def: string; comment: string | null }>`
    SELECT n.nspname || '.' || c.relname || '.' || t.tgname AS name, pg_get_triggerdef(t.oid) AS def,
      obj_description(t.oid, 'pg_trigger') AS comment
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE ${inSchemas} AND NOT t.tgisinternal`.execute(k);
  for (const t of trig.rows) note(`trigger ${t.name}`, t.comment, null);

  return {
    schemas: nsp.rows.map((s) => s.name).sort(),
    relations,
    constraints: sorted(cons.rows.map((c) => [c.name, c.def])),
    indexes: sorted(idx.rows.map((i) => [i.name, i.def])),
    views: sorted(views.rows.map((v) => [v.name, collapse(v.def)])),
    functions: sorted(funcs.rows.map((f) => [f.name, { kind: f.kind, result: f.result, definition: f.def === null ? null : collapse(f.def) }])),
    triggers: sorted(trig.rows.map((t) => [t.name, t.def])),
    comments: sorted(comments),
    grants: sorted(grants),
  };
}

/** Every leaf of a catalog under a dotted path ('relations › efa.pins › columns › name › type'). */
function leaves(value: unknown, path: string, into: Map<string, string>): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, path === '' ? key : `${path} › ${key}`, into);
  } else {
    into.set(path, JSON.stringify(value));
  }
  return into;
}

/**
 * The differences from `a` to `b`, one readable line each, sorted: `- path: value` only in a,
 * `+ path: value` only in b, `~ path: a-value → b-value` changed. Empty when the catalogs are equal.
 */
export function diffCatalogs(a: Catalog, b: Catalog): string[] {
  const left = leaves(a, '', new Map());
  const right = leaves(b, '', new Map());
  const out: string[] = [];
  for (const [path, value] of left) {
    const other = right.get(path);
    if (other === undefined) out.push(`- ${path}: ${value}`);
    else if (other !== value) out.push(`~ ${path}: ${value} → ${other}`);
  }
  for (const [path, value] of right) if (!left.has(path)) out.push(`+ ${path}: ${value}`);
  return out.sort((x, y) => (x.slice(2) < y.slice(2) ? -1 : x.slice(2) > y.slice(2) ? 1 : 0));
}
