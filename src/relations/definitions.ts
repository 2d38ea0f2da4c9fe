import type { Definition } from '../db/definitions.js';

/**
 * The definitions derived from the relation modules (history triggers, _as_of, _versions), applied with
 * those of sql/views and sql/functions. None yet: sql/014_history.sql still creates them.
 */
export function relationDefinitions(): Definition[] {
  return [];
}
