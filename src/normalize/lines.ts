import type { ServingLine } from '../efa/records.js';
import { contentHash, stripNul } from './hash.js';

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

/**
 * The stable key of a line: the EFA line id where the answer has one (it names network, line,
 * supplement and direction), else a hash of what identifies a line to a passenger.
 */
export function lineKey(line: ServingLine): string {
  if (line.id) return line.id;
  return `h:${contentHash([line.mot, line.number, line.name, line.direction]).slice(0, 20)}`;
}

export function toLineRow(line: ServingLine): LineRow {
  const clean = stripNul(line);
  const row = { line_id: clean.id ?? null, name: clean.name, number: clean.number, mot: clean.mot, direction: clean.direction, attrs: clean.attrs };
  return { line_key: lineKey(clean), ...row, content_hash: contentHash(row) };
}
