/** Reading the data files: CSV (GTFS) and JSON, with errors that name the file. */
import { access, readFile } from 'node:fs/promises';
import { WorldLoadError } from '../errors.js';

export async function exists(path: string): Promise<boolean> {
  try { await access(path); return true; } catch { return false; }
}

export async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (e) {
    throw new WorldLoadError(path, e instanceof Error ? e.message : String(e));
  }
}

/** Rows of a CSV file as records keyed by header (quotes and a BOM handled). */
export async function readCsv(path: string): Promise<Record<string, string>[]> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) { throw new WorldLoadError(path, e instanceof Error ? e.message : String(e)); }
  const rows = parseCsv(text.replace(/^\uFEFF/, ''));
  const header = rows.shift() ?? [];
  return rows.filter((r) => r.length > 1 || r[0] !== '').map((r) => Object.fromEntries(header.map((h, i) => [h.trim(), r[i] ?? ''])));
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows;
}

/** Narrowing helpers for untyped JSON. */
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
