import type { Notice } from '../efa/records.js';
import { textArrayLiteral } from '../db/pg-array.js';
import { columnLists, json, type Entity } from './entity.js';
import { contentHash, stripNul } from './hash.js';

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
  const n = stripNul(notice);
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

export const notices: Entity<NoticeRow> = {
  relation: 'notices',
  table: 'efa.notices',
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
