import { columnLists, type Entity } from './entity.js';
import type { TableDefinition } from './table.js';

/**
 * efa.stop_lines: which line serves which stop, from the ServingLines answer for the stop.
 * Key: `stop_id|line_key`. The pair is its whole content (the hash is constant): it is inserted
 * once, marked gone, or revived. Deletion scope: stops whose ServingLines request this run was
 * complete, under the same line filters (efa.gone_stop_lines).
 */
export interface StopLineRow {
  readonly stop_id: string;
  readonly line_key: string;
}

export const pairKey = (r: StopLineRow): string => `${r.stop_id}|${r.line_key}`;

/** efa.stop_lines: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const stopLinesTable: TableDefinition = {
  schema: 'efa',
  name: 'stop_lines',
  comment:
    'Which line serves which stop: one row per line in the ServingLines answer for a stop (mode=odv, name_sl = the stop id).',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) of the stop and the line.' },
    { name: 'pair_key', type: 'text', notNull: true, comment: "stop_id|line_key: the pair's key within its source, as efa.changes and efa.run_seen name it." },
    { name: 'stop_id', type: 'text', notNull: true, comment: 'The stop asked for (name_sl): efa.stops.stop_id.' },
    { name: 'line_key', type: 'text', notNull: true, comment: 'A line of its answer: efa.lines.line_key.' },
    { name: 'content_hash', type: 'text', notNull: true, default: "''::text", comment: 'Constant: a pair has no content besides its key.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first saw the line at the stop.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: 'The run that last inserted or revived the pair.' },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: 'When a run that asked for the stop no longer found the line in its answer; NULL while it serves the stop.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'stop_lines_source_key_uq', sql: 'UNIQUE (source, pair_key)' },
    { name: 'stop_lines_line_fk', sql: 'FOREIGN KEY (source, line_key) REFERENCES efa.lines (source, line_key)' },
  ],
  indexes: [
    { name: 'stop_lines_line_idx', on: ['source', 'line_key'] },
    { name: 'stop_lines_stop_idx', on: ['source', 'stop_id'] },
  ],
  history: { key: 'pair_key', gone: 'deleted_at', label: 'stop-line pairs' },
};

export const stopLines: Entity<StopLineRow> = {
  relation: 'stop_lines',
  table: stopLinesTable,
  key: 'pair_key',
  goneColumn: 'deleted_at',
  keyOf: pairKey,
  hashOf: () => '',
  // A pair refers to its stop and its line; a stop found gone takes its pairs along.
  after: ['pins', 'lines'],
  goneAfter: ['pins'],
  ...columnLists<StopLineRow>(
    [
      { name: 'stop_id', type: 'text', value: (r) => r.stop_id },
      { name: 'line_key', type: 'text', value: (r) => r.line_key },
    ],
    { direct: false },
  ),
  scopeOf: (job) => {
    const cfg = job.sweeps.servingLines;
    return cfg?.forStops ? { lineReqType: [...cfg.lineReqType].sort() } : undefined;
  },
};
