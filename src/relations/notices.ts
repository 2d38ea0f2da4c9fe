import type { Notice } from '../efa/records.js';
import { textArrayLiteral } from '../db/pg-array.js';
import { columnLists, json, type Entity } from './entity.js';
import type { TableDefinition } from './table.js';
import { contentHash } from './hash.js';

/**
 * efa.notices: AddInfo notices, one row per notice id. Deletion scope (`ended_at`): a complete
 * AddInfo sweep of current notices under the same filters that saw it before and not now.
 */
export interface NoticeRow {
  readonly notice_id: string;
  readonly type: string;
  readonly title: string;
  readonly text: string;
  readonly valid_from: string | null;
  readonly valid_to: string | null;
  readonly severity: string | null;
  readonly lines: readonly string[];
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

export function toNoticeRow(notice: Notice): NoticeRow {
  // The notice's text is storable already: parseEach made it so (efa/text/storable.ts).
  const n = notice;
  const row = {
    type: n.type,
    title: n.title,
    text: n.text,
    valid_from: n.validFrom ?? null,
    valid_to: n.validTo ?? null,
    severity: n.severity ?? null,
    lines: [...new Set(n.lines)].sort(),
    attrs: n.attrs,
  };
  return { notice_id: n.id, ...row, content_hash: contentHash(row) };
}

/**
 * rapidJSON answers a "current" query with `infos.current` and `infos.historic` together; the
 * dialect marks the historic ones (`attrs.publication`), and a sweep of current notices keeps only
 * the current ones, so an ended notice is never stored as active.
 */
export function withPublication(notices: readonly Notice[], status: 'current' | 'history'): Notice[] {
  return status === 'current' ? notices.filter((n) => n.attrs['publication'] !== 'historic') : [...notices];
}

/** efa.notices: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const noticesTable: TableDefinition = {
  schema: 'efa',
  name: 'notices',
  comment:
    'Disruption and information notices from AddInfo answers (infos[]), one row per notice id however many filters returned it. Never hard-deleted: ended_at is set when a complete AddInfo sweep no longer returns it.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) the notice belongs to; notice_id is unique within it.' },
    { name: 'notice_id', type: 'text', notNull: true, comment: 'AddInfo infos[].id.' },
    { name: 'type', type: 'text', notNull: true, comment: 'AddInfo infos[].type: stopInfo, stopBlocking, lineInfo, lineBlocking, routeInfo, routeBlocking, generalInfo or bannerInfo.' },
    { name: 'title', type: 'text', notNull: true, default: "''::text", comment: 'AddInfo infos[].title: headline; empty when absent.' },
    { name: 'text', type: 'text', notNull: true, default: "''::text", comment: 'AddInfo infos[].text: body text; empty when absent.' },
    { name: 'valid_from', type: 'date', comment: 'AddInfo infos[].validFrom (YYYY-MM-DD): first day of validity; NULL = open.' },
    { name: 'valid_to', type: 'date', comment: 'AddInfo infos[].validTo (YYYY-MM-DD): last day of validity, inclusive; NULL = open.' },
    { name: 'severity', type: 'text', comment: 'AddInfo infos[].severity: severity label as the deployment names it; NULL when absent.' },
    { name: 'lines', type: 'text[]', notNull: true, default: "'{}'::text[]", comment: 'AddInfo infos[].lines: identifiers of the affected lines (colon-separated parts, the leading parts of efa.lines.line_id), sorted and distinct; see efa.notice_lines.' },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: 'Every other field of the notice as received (JSON), e.g. provider code, source system, affected stops.' },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row; changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the notice.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the notice's content." },
    { name: 'ended_at', type: 'timestamp with time zone', comment: 'When a complete AddInfo sweep no longer returned the notice; NULL while it is published.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'notices_source_key_uq', sql: 'UNIQUE (source, notice_id)' },
  ],
  indexes: [],
  history: { key: 'notice_id', gone: 'ended_at', label: 'notices' },
};

export const notices: Entity<NoticeRow> = {
  relation: 'notices',
  table: noticesTable,
  key: 'notice_id',
  goneColumn: 'ended_at',
  keyOf: (r) => r.notice_id,
  hashOf: (r) => r.content_hash,
  after: [],
  goneAfter: [],
  ...columnLists<NoticeRow>(
    [
      { name: 'type', type: 'text', value: (r) => r.type },
      { name: 'title', type: 'text', value: (r) => r.title },
      { name: 'text', type: 'text', value: (r) => r.text, staged: 'body' },
      { name: 'valid_from', type: 'date', value: (r) => r.valid_from },
      { name: 'valid_to', type: 'date', value: (r) => r.valid_to },
      { name: 'severity', type: 'text', value: (r) => r.severity },
      { name: 'lines', type: 'text[]', value: (r) => textArrayLiteral(r.lines) },
      { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
    ],
    { direct: false },
  ),
  // Every filter is part of the question: a notice another filter set found was not looked for.
  scopeOf: (job) => (job.sweeps.addInfo ? { ...job.sweeps.addInfo } : undefined),
};
