import { EXIT_CODE_TABLE, type ExitCodeRow } from '../errors.js';

/*
 * The exit-code table of src/errors.ts as the documents and `--help` show it. Every Markdown file that
 * lists exit codes holds it between the markers below; `npm run docs:exit-codes` rewrites those blocks and
 * test/deploy/exit-codes.test.ts fails when one differs, so no document can drift from the code again.
 */

export const EXIT_CODES_BEGIN = '<!-- exit-codes:begin (generated from src/errors.ts by `npm run docs:exit-codes`; do not edit) -->';
export const EXIT_CODES_END = '<!-- exit-codes:end -->';

/** The documents that carry the generated table, relative to the repository root. */
export const EXIT_CODE_DOCS = ['README.md', 'docs/operations/exit-codes.md', 'docs/deploy/README.md', 'docs/deploy/cron.md', 'docs/deploy/container.md'] as const;

const codesOf = (row: ExitCodeRow, wrap: (code: string) => string): string => row.codes.map((c) => wrap(String(c))).join(', ');

/** The Markdown table, without the markers. */
export function exitCodeMarkdown(rows: readonly ExitCodeRow[] = EXIT_CODE_TABLE): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '| exit | meaning | what a scheduler should do |',
    '|---|---|---|',
    ...rows.map((r) => `| ${codesOf(r, (c) => `\`${c}\``)} | ${escape(r.meaning)} | ${escape(r.scheduler)} |`),
  ].join('\n');
}

/** The plain-text table `--help` ends with. */
export function exitCodeHelp(rows: readonly ExitCodeRow[] = EXIT_CODE_TABLE): string {
  const plain = (text: string): string => text.replace(/\*\*|`/g, '');
  const width = Math.max(...rows.map((r) => codesOf(r, (c) => c).length));
  return ['Exit codes:', ...rows.map((r) => `  ${codesOf(r, (c) => c).padEnd(width)}  ${plain(r.meaning)}. Scheduler: ${plain(r.scheduler)}.`)].join('\n');
}

/**
 * `markdown` with the text between every pair of markers replaced by the table; the number of blocks
 * found. A begin marker without its end is an error (the rest of the file would be lost).
 */
export function withExitCodeTables(markdown: string, table: string = exitCodeMarkdown()): { text: string; blocks: number } {
  let blocks = 0;
  let out = '';
  let rest = markdown;
  for (;;) {
    const begin = rest.indexOf(EXIT_CODES_BEGIN.slice(0, EXIT_CODES_BEGIN.indexOf(' (')));
    if (begin < 0) break;
    const end = rest.indexOf(EXIT_CODES_END, begin);
    if (end < 0) throw new Error(`an exit-codes:begin marker without ${EXIT_CODES_END}`);
    out += `${rest.slice(0, begin)}${EXIT_CODES_BEGIN}\n${table}\n${EXIT_CODES_END}`;
    rest = rest.slice(end + EXIT_CODES_END.length);
    blocks++;
  }
  return { text: out + rest, blocks };
}
