import { terminalText } from './terminal-text.js';

/**
 * A plain text table for terminals: columns padded to their widest cell. Cells are upstream text
 * (stop names, ids) shown escaped (terminalText): a name cannot clear the screen or forge a row.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const shown = rows.map((r) => r.map(terminalText));
  const widths = header.map((h, i) => Math.max(h.length, ...shown.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...shown.map(line)].join('\n') + '\n';
}
