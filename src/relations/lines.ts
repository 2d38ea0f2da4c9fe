import type { ServingLine } from '../efa/records.js';
import { columnLists, json, type Entity } from './entity.js';
import type { TableDefinition } from './table.js';
import { contentHash } from './hash.js';

/**
 * efa.lines: lines from ServingLines answers, asked per swept stop or per line name.
 * Key: the first five parts of the EFA line id (network:line:supplement:direction:project), else a
 * hash of what identifies a line to a passenger. Deletion scope: no live stop of the source is
 * served by it, and a complete ServingLines sweep under the same filters did not see it.
 */
export interface LineRow {
  readonly line_key: string;
  readonly line_id: string | null;
  readonly name: string;
  readonly number: string;
  readonly mot: number;
  readonly direction: string;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

export function lineKey(line: ServingLine): string {
  if (line.id) return line.id;
  return `h:${contentHash([line.mot, line.number, line.name, line.direction]).slice(0, 20)}`;
}

export function toLineRow(line: ServingLine): LineRow {
  // The line's text is storable already: parseEach made it so (efa/text/storable.ts).
  const clean = line;
  const row = { line_id: clean.id ?? null, name: clean.name, number: clean.number, mot: clean.mot, direction: clean.direction, attrs: clean.attrs };
  return { line_key: lineKey(clean), ...row, content_hash: contentHash(row) };
}

/** efa.lines: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const linesTable: TableDefinition = {
  schema: 'efa',
  name: 'lines',
  comment:
    'Lines from ServingLines answers (servingLines[]), asked per swept stop (mode=odv) or per line name (mode=line); one row per line and direction.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) the line belongs to; line_key is unique within it.' },
    { name: 'line_key', type: 'text', notNull: true, comment: "Stable key: the EFA line id (network:line:supplement:direction:project) where the answer has one, else 'h:' + 20 hex digits of a SHA-1 of mot, number, name and direction." },
    { name: 'line_id', type: 'text', comment: 'ServingLines servingLines[].id, the EFA line id; NULL when the answer has none. AddInfo notices name lines by its leading parts (efa.notice_lines).' },
    { name: 'name', type: 'text', notNull: true, comment: 'ServingLines servingLines[].name: public line name.' },
    { name: 'number', type: 'text', notNull: true, comment: 'ServingLines servingLines[].number: line number (as text).' },
    { name: 'mot', type: 'integer', comment: 'ServingLines servingLines[].mot: means-of-transport id.' },
    { name: 'direction', type: 'text', notNull: true, comment: 'ServingLines servingLines[].direction: destination text; empty when absent.' },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: 'Every other field of the serving line as received (JSON).' },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row; changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the line.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the line's content." },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: 'When a complete sweep no longer found the line; NULL while it exists.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'lines_source_key_uq', sql: 'UNIQUE (source, line_key)' },
  ],
  indexes: [],
  history: { key: 'line_key', gone: 'deleted_at', label: 'lines' },
};

export const lines: Entity<LineRow> = {
  relation: 'lines',
  table: linesTable,
  key: 'line_key',
  goneColumn: 'deleted_at',
  keyOf: (r) => r.line_key,
  hashOf: (r) => r.content_hash,
  after: [],
  // A line is gone only once no live stop-line pair serves it.
  goneAfter: ['stop_lines'],
  ...columnLists<LineRow>(
    [
      { name: 'line_id', type: 'text', value: (r) => r.line_id },
      { name: 'name', type: 'text', value: (r) => r.name },
      { name: 'number', type: 'text', value: (r) => r.number },
      { name: 'mot', type: 'integer', value: (r) => r.mot },
      { name: 'direction', type: 'text', value: (r) => r.direction },
      { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
    ],
    { direct: false },
  ),
  scopeOf: (job) => {
    const cfg = job.sweeps.servingLines;
    return cfg ? { forStops: cfg.forStops, lineNames: [...cfg.lineNames].sort(), lineReqType: [...cfg.lineReqType].sort() } : undefined;
  },
};
