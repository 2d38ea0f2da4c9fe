import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { warehouseTables } from '../../src/db/warehouse-catalog.js';

/** Rows and an md5 of every row's text, in primary-key order: equal digests mean equal tables, row for row. */
export interface TableDigest {
  readonly rows: number;
  readonly md5: string;
}

/**
 * Times as UTC and floats in their shortest exact form, so PGlite 18 and PostgreSQL 15 write a row
 * the same way; geometry is hex EWKB on both.
 */
const sameText = "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL extra_float_digits = 1";

/** The digest of every data table of the warehouse (efa and its day partitions), by table name. */
export async function warehouseDigests(db: Db): Promise<Record<string, TableDigest>> {
  return db.transaction(
    async (tx) => {
      const out: Record<string, TableDigest> = {};
      for (const t of await warehouseTables(tx.kysely)) {
        // The key's text in bytewise order: the same order whatever collation either database has.
        const order = `row(${(t.key.length > 0 ? t.key : t.columns).join(', ')})::text COLLATE "C"`;
        const r = await sql<{ n: number; md5: string }>`
          SELECT count(*)::int AS n, md5(coalesce(string_agg(row(${sql.raw(t.columns.join(', '))})::text, E'\\n' ORDER BY ${sql.raw(order)}), '')) AS md5
          FROM ONLY ${sql.raw(t.name)}`.execute(tx.kysely);
        out[t.name] = { rows: Number(r.rows[0]?.n ?? 0), md5: r.rows[0]?.md5 ?? '' };
      }
      return out;
    },
    { opening: sameText },
  );
}

/** What a query answers, as rows and an md5 of their text in bytewise order. */
export async function answerDigest(db: Db, query: string): Promise<TableDigest> {
  return db.transaction(
    async (tx) => {
      const r = await sql<{ n: number; md5: string }>`
        SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text COLLATE "C"), '')) AS md5 FROM (${sql.raw(query)}) x`.execute(tx.kysely);
      return { rows: Number(r.rows[0]?.n ?? 0), md5: r.rows[0]?.md5 ?? '' };
    },
    { opening: sameText },
  );
}
