import { sql, type Kysely } from 'kysely';

/** One place a secret turned up: a table of schema efa (row text) or a named output channel. */
export interface SecretSighting {
  readonly where: string;
  readonly secret: string;
  /** Up to 80 characters around the first occurrence, with the secret itself masked, for the failure message. */
  readonly context: string;
}

function around(text: string, secret: string): string {
  const at = text.indexOf(secret);
  const from = Math.max(0, at - 40);
  return text.slice(from, at + secret.length + 40).split(secret).join('<SECRET>');
}

/** Every occurrence of each secret in the given texts (stdout, stderr, `--json`, the HTML report…), by channel name. */
export function scanTexts(channels: Readonly<Record<string, string>>, secrets: readonly string[]): SecretSighting[] {
  const found: SecretSighting[] = [];
  for (const [where, text] of Object.entries(channels)) {
    for (const secret of secrets) if (secret !== '' && text.includes(secret)) found.push({ where, secret, context: around(text, secret) });
  }
  return found;
}

/**
 * Every table and materialized view of schema efa whose rows, cast to text, contain one of the
 * secrets. For the end-to-end secrets test: run a job with credentials in baseUrl and headers,
 * then expect `await scanDatabase(db, secrets)` to equal `[]`.
 */
export async function scanDatabase<DB>(db: Kysely<DB>, secrets: readonly string[]): Promise<SecretSighting[]> {
  const relations = await sql<{ name: string }>`
    SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND c.relkind IN ('r', 'p', 'm') ORDER BY 1`.execute(db);
  const found: SecretSighting[] = [];
  for (const { name } of relations.rows) {
    for (const secret of secrets) {
      if (secret === '') continue;
      const hit = await sql<{ row: string }>`
        SELECT t::text AS row FROM ${sql.table(`efa.${name}`)} AS t WHERE strpos(t::text, ${secret}) > 0 LIMIT 1`.execute(db);
      const row = hit.rows[0]?.row;
      if (row !== undefined) found.push({ where: `efa.${name}`, secret, context: around(row, secret) });
    }
  }
  return found;
}
