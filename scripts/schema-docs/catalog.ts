import { sql } from 'kysely';
import type { Db } from '../../src/db/connect.js';

/** What docs/schema.md is generated from: schema efa as the catalog describes it. */
export interface Column {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  readonly default: string | null;
  readonly comment: string | null;
}

export interface Constraint {
  readonly name: string;
  /** p = primary key, u = unique, f = foreign key. */
  readonly type: 'p' | 'u' | 'f';
  readonly columns: readonly string[];
  readonly refRelation: string | null;
  readonly refColumns: readonly string[];
}

export interface Relation {
  readonly name: string;
  readonly kind: 'table' | 'view' | 'materialized view';
  readonly comment: string | null;
  readonly columns: readonly Column[];
  readonly constraints: readonly Constraint[];
  /** `name: method (columns)`, e.g. `pins_geom_gix: gist (geom)`. */
  readonly indexes: readonly string[];
}

/** A function of schema efa that carries a comment (the ones analysts call: as-of, versions, diff, …). */
export interface FunctionDoc {
  /** `efa.name(arg type, …)` */
  readonly signature: string;
  /** What it returns, as the catalog says (`SETOF record`, `TABLE(…)`, `boolean`). */
  readonly returns: string;
  readonly comment: string;
}

export interface Catalog {
  readonly schemaComment: string | null;
  readonly relations: readonly Relation[];
  readonly functions: readonly FunctionDoc[];
}

const kinds = { r: 'table', p: 'table', v: 'view', m: 'materialized view' } as const;

export async function readCatalog(db: Db, schema = 'efa'): Promise<Catalog> {
  const k = db.kysely;
  const ns = await sql<{ comment: string | null }>`
    SELECT obj_description(oid, 'pg_namespace') AS comment FROM pg_namespace WHERE nspname = ${schema}`.execute(k);
  const rels = await sql<{ name: string; kind: keyof typeof kinds; comment: string | null }>`
    SELECT c.relname::text AS name, c.relkind::text AS kind, obj_description(c.oid, 'pg_class') AS comment
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm')
    ORDER BY c.relname`.execute(k);
  const cols = await sql<{ rel: string; name: string; type: string; not_null: boolean; default: string | null; comment: string | null }>`
    SELECT c.relname::text AS rel, a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
           CASE WHEN a.attidentity IN ('a', 'd') THEN 'identity' ELSE pg_get_expr(d.adbin, d.adrelid) END AS default,
           col_description(c.oid, a.attnum) AS comment
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`.execute(k);
  const cons = await sql<{ rel: string; name: string; type: 'p' | 'u' | 'f'; columns: string[]; ref_rel: string | null; ref_columns: string[] }>`
    SELECT c.relname::text AS rel, k.conname::text AS name, k.contype::text AS type,
           ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS columns,
           f.relname::text AS ref_rel,
           ARRAY(SELECT a.attname::text FROM unnest(coalesce(k.confkey, '{}'::int2[])) WITH ORDINALITY AS u(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS ref_columns
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_class f ON f.oid = k.confrelid
    WHERE n.nspname = ${schema} AND k.contype IN ('p', 'u', 'f')
    ORDER BY c.relname, k.contype, k.conname`.execute(k);
  // Indexes that back a constraint are listed with the constraint.
  const idx = await sql<{ rel: string; name: string; def: string }>`
    SELECT c.relname::text AS rel, i.relname::text AS name, pg_get_indexdef(i.oid) AS def
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class c ON c.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid)
    ORDER BY c.relname, i.relname`.execute(k);
  const fns = await sql<{ signature: string; returns: string; comment: string }>`
    SELECT 'efa.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature,
           pg_get_function_result(p.oid) AS returns, obj_description(p.oid, 'pg_proc') AS comment
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = ${schema} AND obj_description(p.oid, 'pg_proc') IS NOT NULL
    ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`.execute(k);
  return {
    schemaComment: ns.rows[0]?.comment ?? null,
    functions: fns.rows,
    relations: rels.rows.map((r) => ({
      name: r.name,
      kind: kinds[r.kind],
      comment: r.comment,
      columns: cols.rows
        .filter((c) => c.rel === r.name)
        .map((c) => ({ name: c.name, type: c.type, notNull: c.not_null, default: c.default, comment: c.comment })),
      constraints: cons.rows
        .filter((c) => c.rel === r.name)
        .map((c) => ({ name: c.name, type: c.type, columns: c.columns, refRelation: c.ref_rel, refColumns: c.ref_columns })),
      indexes: idx.rows.filter((i) => i.rel === r.name).map((i) => `${i.name}: ${indexShape(i.def)}`),
    })),
  };
}

/** `CREATE UNIQUE INDEX x ON efa.t USING gist (geom)` -> `unique gist (geom)`. */
export function indexShape(def: string): string {
  const m = /^CREATE (UNIQUE )?INDEX \S+ ON \S+ USING (.*)$/.exec(def);
  return m ? `${m[1] ? 'unique ' : ''}${m[2]}` : def;
}

/** Relations or columns without a comment, as `efa.rel` / `efa.rel.column`. */
export function undocumented(catalog: Catalog, schema = 'efa'): string[] {
  const missing: string[] = [];
  for (const r of catalog.relations) {
    if (!r.comment?.trim()) missing.push(`${schema}.${r.name}`);
    for (const c of r.columns) if (!c.comment?.trim()) missing.push(`${schema}.${r.name}.${c.name}`);
  }
  return missing;
}
