import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Db } from '../db/connect.js';
import { renderReportHtml } from './html.js';
import { FILE_TARGET_TIMEOUT_MS, writeBounded } from '../util/bounded-file.js';
import { loadReportData } from './queries.js';

export { renderReportHtml } from './html.js';
export { loadReportData, RunNotFoundError, type ReportData } from './queries.js';
export { renderPrometheusMetrics, writeMetricsFile } from './metrics.js';

export interface WrittenReport {
  readonly file: string;
  readonly runId: string;
  readonly bytes: number;
}

/** Writes the offline HTML report of run `runId` (default: the latest run) to `outFile`. */
export async function writeRunReport(db: Db, runId: string | undefined, outFile: string): Promise<WrittenReport> {
  const data = await loadReportData(db, runId);
  const html = renderReportHtml(data);
  const file = resolve(outFile);
  await mkdir(dirname(file), { recursive: true });
  // A FIFO or a device is refused, a slow disk bounded (util/bounded-file.ts).
  await writeBounded(file, html, FILE_TARGET_TIMEOUT_MS, 'the report');
  return { file, runId: data.run.runId, bytes: Buffer.byteLength(html, 'utf8') };
}
