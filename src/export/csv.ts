import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ExportRelation, ExportRow } from './relation.js';
import type { ExportWriter, WriterModule } from './writer.js';

/**
 * CSV (RFC 4180, UTF-8, a header line, CRLF) for spreadsheets and BI tools: every column, then the
 * geometry as `lon` and `lat` (a point on the surface of anything that is not a point) and, for
 * relations whose geometry is not a point, `wkt` with the whole geometry. A relation that already
 * has lon and lat columns (the current_* views) keeps its own. Arrays and JSON are JSON text; an
 * empty field is NULL. GDAL reads it with `-oo X_POSSIBLE_NAMES=lon -oo Y_POSSIBLE_NAMES=lat` or
 * `-oo GEOM_POSSIBLE_NAMES=wkt`. CSV has no place for comments or a CRS: EPSG:4326, in efa as here.
 */

/** A field quoted when it holds a separator, a quote or a line break; quotes doubled. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Uint8Array ? `\\x${Buffer.from(value).toString('hex')}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLayout(rel: ExportRelation): { header: string[]; lonLat: boolean; wkt: boolean } {
  const names = new Set(rel.columns.map((c) => c.name));
  const lonLat = rel.geometry !== undefined && !(names.has('lon') && names.has('lat'));
  const wkt = rel.geometry !== undefined && rel.geometry.type !== 'Point' && !names.has('wkt');
  return { header: [...rel.columns.map((c) => c.name), ...(lonLat ? ['lon', 'lat'] : []), ...(wkt ? ['wkt'] : [])], lonLat, wkt };
}

export const csv: WriterModule = {
  geometryEncoding: 'lonlat',
  needsGeometry: false,
  open(path: string, rel: ExportRelation): ExportWriter {
    const layout = csvLayout(rel);
    const out = createWriteStream(path, { encoding: 'utf8' });
    const failed = new Promise<never>((_, reject) => out.once('error', reject));
    failed.catch(() => undefined);
    const line = (fields: readonly unknown[]): string => `${fields.map(csvField).join(',')}\r\n`;
    const put = async (text: string): Promise<void> => {
      if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
    };
    return {
      begin: () => put(line(layout.header)),
      write: async (rows: readonly ExportRow[]) => {
        let chunk = '';
        for (const r of rows) {
          const fields: unknown[] = [...r.values];
          if (layout.lonLat) fields.push(r.lon ?? null, r.lat ?? null);
          if (layout.wkt) fields.push(r.wkt ?? null);
          chunk += line(fields);
        }
        await put(chunk);
      },
      finish: async () => {
        out.end();
        await Promise.race([once(out, 'finish'), failed]);
      },
      abort: () => {
        out.destroy();
      },
    };
  },
};
