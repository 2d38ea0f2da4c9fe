import type { ServingLine } from '../efa/records.js';
import { columnLists, json, type Entity } from './entity.js';
import { contentHash, stripNul } from './hash.js';

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
  const clean = stripNul(line);
  const row = { line_id: clean.id ?? null, name: clean.name, number: clean.number, mot: clean.mot, direction: clean.direction, attrs: clean.attrs };
  return { line_key: lineKey(clean), ...row, content_hash: contentHash(row) };
}

export const lines: Entity<LineRow> = {
  relation: 'lines',
  table: 'efa.lines',
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
