import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * Just enough Markdown for checking what the docs name: links, code blocks, inline code, table rows and
 * the anchors GitHub gives headings. No parser dependency: the docs are written in a plain subset
 * (fenced blocks with ```, pipe tables, no reference-style links).
 */

export interface MarkdownFile {
  /** Relative to the repository root, `/`-separated (`docs/jobs.md`). */
  readonly path: string;
  readonly text: string;
}

/** README.md and every Markdown file under docs/, in a stable order. */
export async function readDocs(root: string): Promise<MarkdownFile[]> {
  const underDocs = (await readdir(join(root, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const paths = ['README.md', ...underDocs.sort()];
  return Promise.all(paths.map(async (p) => ({ path: relative(root, join(root, p)).split('\\').join('/'), text: await readFile(join(root, p), 'utf8') })));
}

/** The text outside fenced code blocks, and the lines inside them. */
export function splitFences(markdown: string): { prose: string; codeLines: string[] } {
  const prose: string[] = [];
  const codeLines: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      inFence = !inFence;
      continue;
    }
    (inFence ? codeLines : prose).push(line);
  }
  return { prose: prose.join('\n'), codeLines };
}

/** Targets of inline links `[text](target)` outside code, without a title. */
export function linkTargets(markdown: string): string[] {
  const { prose } = splitFences(markdown);
  // Inline code may hold brackets and parentheses that are not links (`[lat, lon]` (…)).
  const withoutCode = prose.replace(/`[^`\n]*`/g, '``');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? '');
}

/** Contents of inline code spans outside fenced blocks. */
export function inlineCode(markdown: string): string[] {
  return [...splitFences(markdown).prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
}

/** Lines of pipe tables outside fenced blocks. */
export function tableRows(markdown: string): string[] {
  return splitFences(markdown).prose.split('\n').filter((l) => /^\s*\|.*\|\s*$/.test(l));
}

/** The anchors GitHub gives a file's headings (lower case, punctuation dropped, spaces to dashes, -1… for repeats). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitFences(markdown).prose.split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** A fenced code block: its info string (after the backticks: `sql`, `sql duckdb`), its text, its first line's number. */
export interface FencedBlock {
  readonly info: string;
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** Every fenced block (```), with its info string. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, i) => {
    const fence = /^\s*```(.*)$/.exec(text);
    if (fence && open === undefined) open = { info: (fence[1] ?? '').trim(), line: i + 1, lines: [] };
    else if (fence && open !== undefined) {
      blocks.push({ info: open.info, code: open.lines.join('\n'), line: open.line });
      open = undefined;
    } else open?.lines.push(text);
  });
  return blocks;
}
