import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from './connect.js';
import { explainLockTimeout, migrationLockStatement, sqlDir } from './migration-lock.js';

/**
 * One view, function or trigger of the warehouse as it is now: its whole SQL (CREATE OR REPLACE … and
 * its COMMENT ON statements), re-applied whenever its checksum changes. Views and functions are
 * definitions, not history: the numbered migrations only change tables and data.
 */
export interface Definition {
  /** Schema-qualified: efa.stops, efa.gone_pins. */
  readonly name: string;
  readonly sql: string;
  /** The definitions it reads, which must exist before it (its file's `-- after:` line). */
  readonly after: readonly string[];
  readonly kind: 'view' | 'function' | 'trigger' | 'other';
}

/** `after` lines that loop: no order creates them. */
export class DefinitionCycleError extends Error {
  override name = 'DefinitionCycleError';
  constructor(readonly cycle: readonly string[]) {
    super(`the definitions depend on each other in a cycle: ${cycle.join(' -> ')} (see their "-- after:" lines)`);
  }
}

const namePattern = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;
const afterLine = /^-- after:(.*)$/;

/** sql/views/<name>.sql and sql/functions/<name>.sql under `dir`: the name is efa.<name> unless it names its schema. */
export async function readDefinitionFiles(dir = sqlDir): Promise<Definition[]> {
  const defs: Definition[] = [];
  for (const [folder, kind] of [['views', 'view'], ['functions', 'function']] as const) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    for (const file of (await readdir(path)).filter((f) => f.endsWith('.sql')).sort()) {
      const base = file.slice(0, -'.sql'.length);
      const name = base.includes('.') ? base : `efa.${base}`;
      const text = await readFile(join(path, file), 'utf8');
      const header = afterLine.exec(text.split('\n', 1)[0] ?? '');
      if (!header || !namePattern.test(name)) throw new Error(`${folder}/${file}: a definition file is named <schema.>name.sql and starts with "-- after: <names>"`);
      const after = (header[1] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
      const trigger = /^\s*CREATE\s+OR\s+REPLACE\s+TRIGGER\b/im.test(text);
      defs.push({ name, sql: text, after, kind: kind === 'function' && trigger ? 'trigger' : kind });
    }
  }
  return defs;
}

export function definitionChecksum(def: Definition): string {
  return createHash('sha256').update(def.sql).digest('hex');
}

/** Every definition after those it reads (depth first, in the order given otherwise); a cycle is an error naming it. */
export function orderDefinitions(defs: readonly Definition[]): Definition[] {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const done = new Set<string>();
  const path: string[] = [];
  const ordered: Definition[] = [];
  const visit = (d: Definition): void => {
    if (done.has(d.name)) return;
    const at = path.indexOf(d.name);
    if (at >= 0) throw new DefinitionCycleError([...path.slice(at), d.name]);
    path.push(d.name);
    for (const name of d.after) {
      const dep = byName.get(name);
      if (!dep) throw new Error(`definition ${d.name} is after ${name}, which no definition defines`);
      visit(dep);
    }
    path.pop();
    done.add(d.name);
    ordered.push(d);
  };
  for (const d of defs) {
    if (!namePattern.test(d.name)) throw new Error(`definition name ${d.name}: schema.name, lower case`);
    if (byName.get(d.name) !== d) throw new Error(`definition ${d.name} is defined twice`);
    visit(d);
  }
  return ordered;
}

/** The changed definitions and every one that reads one of them, in order. */
function staleDefinitions(ordered: readonly Definition[], stored: ReadonlyMap<string, string>): Definition[] {
  const stale = new Set<string>();
  for (const d of ordered) {
    if (stored.get(d.name) !== definitionChecksum(d) || d.after.some((a) => stale.has(a))) stale.add(d.name);
  }
  return ordered.filter((d) => stale.has(d.name));
}

async function storedChecksums(db: Db): Promise<Map<string, string>> {
  const table = await sql<{ t: string | null }>`SELECT to_regclass('efa.schema_definitions')::text AS t`.execute(db.kysely);
  if (!table.rows[0]?.t) throw new Error('efa.schema_definitions is missing: migration 29 creates it, and definitions are applied after the migrations');
  const rows = await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM efa.schema_definitions`.execute(db.kysely);
  return new Map(rows.rows.map((r) => [r.name, r.checksum]));
}

// CREATE OR REPLACE cannot drop or rename a view's columns (42P16) nor change a function's result or
// parameter names (42P13); an object that something still depends on cannot be dropped alone (2BP01);
// a view that became a materialized one or back is the wrong object type (42809, 42P07).
const shapeChanged = new Set(['42P16', '42P13', '2BP01', '42809', '42P07']);
const concurrent = 'efa-sync: definitions applied concurrently';

const literal = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const parts = (name: string): [string, string] => name.split('.') as [string, string];

/** Drops whatever carries a definition's name (triggers of its functions first), if it exists. */
function dropStatement(name: string): string {
  const [schema, object] = parts(name).map(literal) as [string, string];
  return `DO $efa_drop$ DECLARE r record; BEGIN
  FOR r IN
    SELECT 1 AS step, format('DROP TRIGGER %I ON %s', t.tgname, t.tgrelid::regclass) AS stmt
    FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = ${schema} AND p.proname = ${object} AND NOT t.tgisinternal
    UNION ALL
    SELECT 2, format('DROP FUNCTION %s', p.oid::regprocedure)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ${schema} AND p.proname = ${object}
    UNION ALL
    SELECT 3, format('DROP %s %s', CASE c.relkind WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'VIEW' END, c.oid::regclass)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND c.relname = ${object} AND c.relkind IN ('v', 'm')
    ORDER BY 1, 2
  LOOP EXECUTE r.stmt; END LOOP;
END $efa_drop$;`;
}

/**
 * A dropped view or function loses its grants (a reader role's SELECT, given by grant-reader or by
 * hand): they are written down as GRANT statements before the drop and given again after the create.
 */
function saveGrantsStatement(names: readonly string[]): string {
  const list = `ARRAY[${names.map(literal).join(', ')}]::text[]`;
  return `CREATE TEMP TABLE efa_definition_grants ON COMMIT DROP AS
  WITH objects AS (
    SELECT 'TABLE ' || c.oid::regclass::text AS target, c.relacl AS acl
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname || '.' || c.relname = ANY (${list}) AND c.relkind IN ('v', 'm') AND c.relacl IS NOT NULL
    UNION ALL
    SELECT 'FUNCTION ' || p.oid::regprocedure::text, p.proacl
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname || '.' || p.proname = ANY (${list}) AND p.proacl IS NOT NULL
  )
  SELECT 1 AS step, format('REVOKE ALL ON %s FROM PUBLIC', o.target) AS stmt FROM objects o
  UNION ALL
  SELECT 2, format('GRANT %s ON %s TO %s%s', a.privilege_type, o.target,
                   CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
                   CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
  FROM objects o CROSS JOIN LATERAL aclexplode(o.acl) a;`;
}

const restoreGrantsStatement = `DO $efa_grants$ DECLARE r record; BEGIN
  FOR r IN SELECT stmt FROM efa_definition_grants ORDER BY step LOOP EXECUTE r.stmt; END LOOP;
END $efa_grants$;`;

const replaceable = (d: Definition): boolean => !/^\s*CREATE\s+MATERIALIZED\s+VIEW\b/im.test(d.sql);

/**
 * One transaction under the migration lock: checks nobody applied them meanwhile, then either
 * re-creates each in place (CREATE OR REPLACE; a materialized view, which has no OR REPLACE, is dropped
 * and created) or, `rebuild`, drops them all, dependents first, and creates them in order.
 */
function applyScript(lock: string, stale: readonly Definition[], stored: ReadonlyMap<string, string>, rebuild: boolean): string {
  const expected = stale.map((d) => `(${literal(d.name)}, ${stored.has(d.name) ? literal(stored.get(d.name) as string) : 'NULL'}::text)`);
  const dropped = rebuild ? stale : stale.filter((d) => !replaceable(d));
  const body: string[] = [];
  if (rebuild) for (const d of [...stale].reverse()) body.push(dropStatement(d.name));
  for (const d of stale) {
    if (!rebuild && !replaceable(d)) body.push(dropStatement(d.name));
    body.push(`${d.sql}\n;`);
  }
  const records = stale.map((d) => `(${literal(d.name)}, ${literal(definitionChecksum(d))})`);
  return `BEGIN;
${lock}
DO $efa_check$ BEGIN
  IF EXISTS (SELECT 1 FROM (VALUES ${expected.join(', ')}) v(name, checksum) LEFT JOIN efa.schema_definitions s USING (name)
             WHERE s.checksum IS DISTINCT FROM v.checksum) THEN
    RAISE EXCEPTION '${concurrent}';
  END IF;
END $efa_check$;
${dropped.length ? saveGrantsStatement(dropped.map((d) => d.name)) : ''}
${body.join('\n')}
${dropped.length ? restoreGrantsStatement : ''}
INSERT INTO efa.schema_definitions (name, checksum) VALUES ${records.join(', ')}
  ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now();
COMMIT;`;
}

const codeOf = (e: unknown): unknown => (e as { code?: unknown } | null)?.code;

/**
 * Applies the definitions whose checksum differs from the one recorded in efa.schema_definitions, and
 * those that read them. A database that is up to date takes no lock and runs no DDL: the checksums are
 * compared first. Returns the names applied, in order.
 */
export async function applyDefinitions(db: Db, defs: readonly Definition[]): Promise<{ applied: string[] }> {
  const ordered = orderDefinitions(defs);
  if (ordered.length === 0) return { applied: [] };
  for (let attempt = 1; ; attempt++) {
    const stored = await storedChecksums(db);
    const stale = staleDefinitions(ordered, stored);
    if (stale.length === 0) return { applied: [] };
    const lock = await migrationLockStatement(db);
    try {
      await db.exec(applyScript(lock, stale, stored, false)).catch(async (e: unknown) => {
        if (!shapeChanged.has(codeOf(e) as string)) throw e;
        await db.exec(applyScript(lock, stale, stored, true));
      });
      return { applied: stale.map((d) => d.name) };
    } catch (e) {
      // Another migrate applied them between our read and our lock: read again (and most likely find nothing).
      if (e instanceof Error && e.message.includes(concurrent) && attempt < 3) continue;
      return explainLockTimeout(db, e);
    }
  }
}
