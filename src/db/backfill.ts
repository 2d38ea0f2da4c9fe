import { sql, type Kysely } from 'kysely';
import { entities, RELATIONS, type RunScope } from '../relations/index.js';
import { validateJob } from '../job/index.js';
import type { Database } from './tables.js';

/**
 * Runs written before sources (0.1) have no recorded scope. Their `options` hold the job as it
 * ran, so each relation's scope is computed here by the same entity code a new run uses: the first
 * night after the upgrade then compares "seen before" under the same scope, and runs incrementally
 * as before. A run whose options no longer validate keeps an empty scope (it takes part in no
 * comparison, which can only hold deletions back, never cause one).
 */
export async function backfillRunScopes(db: Kysely<Database>): Promise<number> {
  const runs = await sql<{ run_id: string; source: string; options: unknown }>`
    SELECT run_id, source, options FROM efa.runs WHERE scope = '{}'::jsonb`.execute(db);
  let filled = 0;
  for (const run of runs.rows) {
    const { file: _file, ...options } = (run.options ?? {}) as Record<string, unknown>;
    let job;
    try {
      job = validateJob(options, `run ${run.run_id}`);
    } catch {
      continue;
    }
    const relations: RunScope['relations'] = {};
    for (const relation of RELATIONS) {
      const scope = entities[relation].scopeOf(job);
      if (scope) relations[relation] = scope;
    }
    await sql`UPDATE efa.runs SET scope = ${JSON.stringify({ source: run.source, relations })}::jsonb WHERE run_id = ${run.run_id}::bigint`.execute(db);
    filled += 1;
  }
  return filled;
}
