export { HISTORY_RELATIONS, isHistoryRelation, type HistoryRelation } from './relations.js';
export { pruneHistory, pruneHistoryFor, type PrunedCounts } from './prune.js';
export { loadWhatChanged, type RunRelationChanges, type StopChange, type WhatChanged } from './changes.js';
