import { historyTables } from '../relations/definitions.js';
import type { Relation } from '../relations/index.js';

/**
 * Every nightly relation keeps every version today; a relation's declaration says whether it does
 * (TableDefinition.history), and from it come efa.<relation>_history, efa.<relation>_as_of(at),
 * efa.<relation>_versions(key) and its row of efa.history_relations().
 */
export type HistoryRelation = Relation;

/** The relations whose declarations keep history, in the order efa.history_relations() lists them. */
export const HISTORY_RELATIONS: readonly HistoryRelation[] = historyTables().map((t) => t.name as HistoryRelation);

export function isHistoryRelation(name: string): name is HistoryRelation {
  return (HISTORY_RELATIONS as readonly string[]).includes(name);
}
