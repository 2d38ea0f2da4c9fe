import type { Relation } from '../relations/index.js';

/**
 * The relations that keep every version (sql/014_history.sql): each has efa.<relation>_history,
 * efa.<relation>_as_of(at) and efa.<relation>_versions(key). The SQL side lists the same in
 * efa.history_relations(); a test checks that both agree.
 */
export const HISTORY_RELATIONS = ['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas'] as const satisfies readonly Relation[];
export type HistoryRelation = (typeof HISTORY_RELATIONS)[number];

export function isHistoryRelation(name: string): name is HistoryRelation {
  return (HISTORY_RELATIONS as readonly string[]).includes(name);
}
