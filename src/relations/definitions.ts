import type { Definition } from '../db/definitions.js';
import { asOfSql, hasHistory, historyCommentsSql, historyRelationsSql, historyTriggerSql, keepHistorySql, versionsSql, type HistoryTable } from './history-sql.js';
import { wholeSweepDeletionAfter, wholeSweepDeletionSql } from './deletion-sql.js';
import { entities, ordered, snapshotRelations } from './index.js';
import { tableCommentsSql, type TableDefinition } from './table.js';

export type { Definition };

/** Every relation's table declaration: the entities' in write order (a pair after its line), then the snapshot series'. */
export function relationTables(): TableDefinition[] {
  return [...ordered('after').map((r) => entities[r].table), ...snapshotRelations.map((r) => r.table)];
}

/** The declarations of the relations that keep every version: HISTORY_RELATIONS and efa.history_relations() list these. */
export function historyTables(): HistoryTable[] {
  return relationTables().filter(hasHistory);
}

/**
 * What every relation's declaration generates besides its tables (which src/db/table-sync.ts
 * creates): the deletion predicate of a relation one operation sweeps whole, the comments of every
 * table and its columns (the snapshot series' too), and for a relation with history its trigger
 * function and trigger, efa.<relation>_as_of, efa.<relation>_versions and its history table's
 * comments; then efa.history_relations() over them all.
 */
export function relationDefinitions(): Definition[] {
  const out: Definition[] = [];
  for (const r of ordered('after')) {
    const { table: t, key, deletion } = entities[r];
    if (deletion) out.push({ name: `${t.schema}.gone_${t.name}`, kind: 'function', after: [...wholeSweepDeletionAfter], sql: wholeSweepDeletionSql(t, key, deletion) });
  }
  for (const t of relationTables()) {
    const n = `${t.schema}.${t.name}`;
    // Named as the definitions runner wants (schema.name, lower case): the object's own name where
    // it is one (a rebuild drops what carries it), else the table's name and what the SQL makes.
    out.push({ name: `${n}_comments`, kind: 'other', after: [], sql: tableCommentsSql(t) });
    if (!hasHistory(t)) continue;
    out.push(
      { name: `${n}_keep_history`, kind: 'function', after: [], sql: keepHistorySql(t) },
      { name: `${n}_history_trigger`, kind: 'trigger', after: [`${n}_keep_history`], sql: historyTriggerSql(t) },
      { name: `${n}_as_of`, kind: 'function', after: [], sql: asOfSql(t) },
      { name: `${n}_versions`, kind: 'function', after: [], sql: versionsSql(t) },
      { name: `${n}_history_comments`, kind: 'other', after: [], sql: historyCommentsSql(t) },
    );
  }
  out.push({ name: 'efa.history_relations', kind: 'function', after: [], sql: historyRelationsSql(historyTables()) });
  return out;
}
