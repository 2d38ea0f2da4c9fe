import type { Db } from './connect.js';

/**
 * Brings the relation tables in line with their declarations, after the numbered migrations and before
 * the definitions (which read those tables). A stub until the relation modules declare their columns.
 */
export async function syncRelationTables(_db: Db): Promise<void> {}
