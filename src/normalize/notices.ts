import type { Notice } from '../efa/records.js';
import { contentHash, stripNul } from './hash.js';

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
 * The same notice comes back under several filters (one per affected line); keep one per id.
 * When two copies differ, the later one wins, as the newer answer.
 */
export function dedupeNotices(notices: Iterable<Notice>): Notice[] {
  const byId = new Map<string, Notice>();
  for (const n of notices) byId.set(n.id, n);
  return [...byId.values()];
}

/**
 * rapidJSON answers a "current" query with `infos.current` and `infos.historic` together; the
 * dialect marks the historic ones (`attrs.publication`), and a sweep of current notices keeps only
 * the current ones, so an ended notice is never stored as active.
 */
export function withPublication(notices: readonly Notice[], status: 'current' | 'history'): Notice[] {
  return status === 'current' ? notices.filter((n) => n.attrs['publication'] !== 'historic') : [...notices];
}
