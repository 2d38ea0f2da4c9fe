import type { Notice } from '../efa/records.js';
import { textArrayLiteral } from '../db/pg-array.js';
import { json, type Entity } from './entity.js';
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

/** How a copy of a notice ranks against another copy of the same id: current over historic, then higher version. */
function rank(n: Notice): [number, number] {
  const version = Number(n.attrs['version']);
  return [n.attrs['publication'] === 'historic' ? 0 : 1, Number.isFinite(version) ? version : -1];
}

/**
 * One notice per id. The same notice comes back under several filters, and an answer may carry an
 * older and a newer version of it: the current one wins over a historic one, then the highest
 * `version`, then (for a deterministic result in any answer order) the lowest content hash.
 */
export function newestPerNotice(list: Iterable<Notice>): Notice[] {
  const byId = new Map<string, { notice: Notice; rank: [number, number]; hash: string }>();
  for (const notice of list) {
    const candidate = { notice, rank: rank(notice), hash: contentHash(notice) };
    const kept = byId.get(notice.id);
    const better =
      !kept ||
      candidate.rank[0] > kept.rank[0] ||
      (candidate.rank[0] === kept.rank[0] && (candidate.rank[1] > kept.rank[1] || (candidate.rank[1] === kept.rank[1] && candidate.hash < kept.hash)));
    if (better) byId.set(notice.id, candidate);
  }
  return [...byId.values()].map((v) => v.notice);
}

export const notices: Entity<NoticeRow> = {
  relation: 'notices',
  table: 'efa.notices',
  key: 'notice_id',
  goneColumn: 'ended_at',
  keyOf: (r) => r.notice_id,
  hashOf: (r) => r.content_hash,
  staged: [
    { name: 'type', type: 'text', value: (r) => r.type },
    { name: 'title', type: 'text', value: (r) => r.title },
    { name: 'body', type: 'text', value: (r) => r.text },
    { name: 'valid_from', type: 'date', value: (r) => r.valid_from },
    { name: 'valid_to', type: 'date', value: (r) => r.valid_to },
    { name: 'severity', type: 'text', value: (r) => r.severity },
    { name: 'lines', type: 'text[]', value: (r) => textArrayLiteral(r.lines) },
    { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
  ],
  stored: [
    { name: 'type', expr: 'type' },
    { name: 'title', expr: 'title' },
    { name: 'text', expr: 'body' },
    { name: 'valid_from', expr: 'valid_from' },
    { name: 'valid_to', expr: 'valid_to' },
    { name: 'severity', expr: 'severity' },
    { name: 'lines', expr: 'lines' },
    { name: 'attrs', expr: 'attrs' },
  ],
  // Every filter is part of the question: a notice another filter set found was not looked for.
  scopeOf: (job) => (job.sweeps.addInfo ? { ...job.sweeps.addInfo } : undefined),
};
