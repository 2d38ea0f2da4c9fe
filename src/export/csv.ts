import type { ColumnKind, ExportRelation, ExportRow } from './relation.js';
import { byteOut } from './sink.js';
import type { WriteSink } from './target.js';
import type { ExportWriter, WriterModule, WriterOptions } from './writer.js';

/**
 * CSV (RFC 4180, UTF-8, a header line, CRLF) for spreadsheets and BI tools: every column, then the
 * geometry as `lon` and `lat` (a point on the surface of anything that is not a point) and `WKT`
 * with the whole geometry: GDAL's CSV driver reads a column named WKT as the geometry by itself.
 * A relation that already has lon and lat columns (the current_* views) keeps its own. Arrays and
 * JSON are JSON text; an empty field is NULL. CSV has no place for comments or a CRS: EPSG:4326.
 *
 * Formula injection (OWASP): a spreadsheet runs a cell that starts with = + - @ (or a tab or CR
 * before one) as a formula, and upstream names are hostile. Text cells starting with one of those
 * get a leading ' (which spreadsheets show as text and hide); numbers, times and JSON are not text
 * cells and stay as they are. `--csv-raw` writes every cell as it is, for pipelines that want the bytes.
 */

/** A field quoted when it holds a separator, a quote or a line break; quotes doubled. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Uint8Array ? `\\x${Buffer.from(value).toString('hex')}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** OWASP's CSV injection rule: the characters a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet would run, made inert; undefined when it is safe as it is. */
export function neutralised(text: string): string | undefined {
  return FORMULA_START.test(text) ? `'${text}` : undefined;
}

const isTextKind = (kind: ColumnKind): boolean => kind === 'text';

export function csvLayout(rel: ExportRelation): { header: string[]; lonLat: boolean; wkt: boolean } {
  const names = new Set(rel.columns.map((c) => c.name.toLowerCase()));
  const lonLat = rel.geometry !== undefined && !(names.has('lon') && names.has('lat'));
  const wkt = rel.geometry !== undefined && !names.has('wkt');
  return { header: [...rel.columns.map((c) => c.name), ...(lonLat ? ['lon', 'lat'] : []), ...(wkt ? ['WKT'] : [])], lonLat, wkt };
}

export const csv: WriterModule = {
  geometryEncoding: 'lonlat',
  needsGeometry: false,
  notStreamable: undefined,
  multiLayer: false,
  open(sink: WriteSink, rels: readonly ExportRelation[], options: WriterOptions): ExportWriter {
    const rel = rels[0];
    if (!rel) throw new Error('csv: no relation to write');
    const layout = csvLayout(rel);
    const out = byteOut(sink);
    const raw = options.csvRaw === true;
    let defused = 0;
    const text = (value: unknown): unknown => {
      if (raw || typeof value !== 'string') return value;
      const safe = neutralised(value);
      if (safe === undefined) return value;
      defused++;
      return safe;
    };
    const textColumns = rel.columns.map((c) => isTextKind(c.kind));
    const line = (fields: readonly unknown[]): string => `${fields.map(csvField).join(',')}\r\n`;
    return {
      layers: [
        {
          begin: () => out.put(line(layout.header.map(text))),
          write: async (rows: readonly ExportRow[]) => {
            let chunk = '';
            for (const r of rows) {
              const fields: unknown[] = r.values.map((v, i) => (textColumns[i] ? text(v) : v));
              if (layout.lonLat) fields.push(r.lon ?? null, r.lat ?? null);
              if (layout.wkt) fields.push(r.wkt ?? null);
              chunk += line(fields);
            }
            await out.put(chunk);
          },
        },
      ],
      finish: async () => {
        await out.end();
        if (defused > 0) {
          options.onWarning?.(`csv: ${defused} text cell(s) starting with = + - @ tab or CR were prefixed with ' so spreadsheets do not run them as formulas; --csv-raw writes them as they are`);
        }
      },
      abort: () => out.destroy(),
    };
  },
};
