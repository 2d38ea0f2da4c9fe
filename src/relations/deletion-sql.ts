/**
 * Deletion predicates generated from a relation's declaration, for the relations a single operation
 * sweeps whole (OpArea's providers and areas): gone are the source's live keys that a run whose sweep
 * of that operation was complete did not see, and that runs of the same scope saw before. The
 * predicates whose rule depends on places or filters (pins, notices, stop-lines, …) stay written by
 * hand, one file each in sql/functions/.
 */
import { literal, type TableDefinition } from './table.js';

export interface WholeSweepDeletion {
  /** The operation whose complete sweep decides (efa.operation_complete's name for it: `opArea`). */
  readonly whenComplete: string;
  /** COMMENT ON FUNCTION of efa.gone_<relation>. */
  readonly comment: string;
}

/** What the generated predicate reads: applied after these definitions. */
export const wholeSweepDeletionAfter = ['efa.candidates_seen_before', 'efa.operation_complete', 'efa.run_seen_keys'] as const;

/** efa.gone_<relation>(run_id): the keys the run marks gone (src/db/deletion.ts calls it). */
export function wholeSweepDeletionSql(t: Pick<TableDefinition, 'schema' | 'name'>, key: string, d: WholeSweepDeletion): string {
  const fn = `${t.schema}.gone_${t.name}`;
  const relation = literal(t.name);
  return `CREATE OR REPLACE FUNCTION ${fn}(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_candidates text[];
BEGIN
  IF NOT efa.operation_complete(p_run, ${literal(d.whenComplete)}) THEN
    RETURN;
  END IF;
  SELECT r.source INTO v_source FROM efa.runs r WHERE r.run_id = p_run;
  SELECT array_agg(c.k) INTO v_candidates FROM (
    SELECT x.${key} AS k FROM ${t.schema}.${t.name} x WHERE x.source = v_source AND x.deleted_at IS NULL
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, ${relation}) AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, ${relation}, v_candidates) AS c;
END
$$;
COMMENT ON FUNCTION ${fn}(bigint) IS ${literal(d.comment)};
`;
}
