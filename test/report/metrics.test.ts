import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLastSuccess, renderPrometheusMetrics, writeMetricsFile } from '../../src/report/metrics.js';
import type { RunSummary } from '../../src/run/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { runFaultyJob, startSims, type Sims } from './run-fixture.js';

/** value of the sample of `name` whose labels include `labels`, as a number (undefined when absent). */
function sample(families: readonly PromFamily[], name: string, labels: Record<string, string> = {}): number | undefined {
  const f = families.find((x) => x.name === name);
  const m = f?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return m ? Number(m.value) : undefined;
}

describe('Prometheus metrics of a real run', () => {
  let sims: Sims;
  let t: TestDb;
  let summary: RunSummary;
  let dir: string;
  beforeAll(async () => {
    sims = await startSims();
    t = await openTestDb();
    summary = await runFaultyJob(sims, t, 'metrics', { servingLines: false });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-metrics-'));
  });
  afterAll(async () => {
    await t?.dispose();
    await sims?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('carries the run status, requests, units and rows through a text-format parser', () => {
    const now = new Date('2026-11-22T03:04:05Z');
    const families = parsePrometheusTextFormat(renderPrometheusMetrics(summary, 'metrics', { now }));
    expect(summary.status).toBe('partial');
    expect(families.every((f) => f.help.length > 0)).toBe(true);
    expect(families.every((f) => f.metrics.every((m) => m.labels?.['efa_job'] === 'metrics' && m.labels['job'] === undefined))).toBe(true);

    expect(sample(families, 'efa_sync_run_status', { status: 'partial' })).toBe(1);
    expect(sample(families, 'efa_sync_run_status', { status: 'succeeded' })).toBe(0);
    expect(sample(families, 'efa_sync_run_status', { status: 'failed' })).toBe(0);
    expect(sample(families, 'efa_sync_run_exit_code')).toBe(3);
    expect(sample(families, 'efa_sync_run_id')).toBe(Number(summary.runId));
    expect(sample(families, 'efa_sync_run_duration_seconds')).toBe(summary.durationS);
    expect(sample(families, 'efa_sync_run_last_timestamp_seconds')).toBe(now.getTime() / 1000);
    // Not a success: no last-success sample unless the caller carries an earlier one over.
    expect(families.find((f) => f.name === 'efa_sync_run_last_success_timestamp_seconds')).toBeUndefined();

    // Counts of one run restart with every run: gauges named for the last run, not counters.
    expect(families.filter((f) => f.type === 'COUNTER').map((f) => f.name)).toEqual([]);
    expect(families.find((f) => f.name === 'efa_sync_requests_total')).toBeUndefined();
    const requests = families.find((f) => f.name === 'efa_sync_last_run_requests');
    expect(requests?.type).toBe('GAUGE');
    const byOp: Record<string, number> = Object.fromEntries(requests?.metrics.map((m) => [m.labels?.['operation'] ?? '', Number(m.value)]) ?? []);
    expect(byOp).toEqual(summary.requestsByOperation);
    expect(Object.values(byOp).reduce((a, b) => a + b, 0)).toBe(summary.requests);
    expect(sample(families, 'efa_sync_last_run_retries')).toBe(summary.retries);
    expect(sample(families, 'efa_sync_units', { operation: 'coordInfo', status: 'failed' })).toBe(summary.failures.length);
    expect(sample(families, 'efa_sync_units', { operation: 'coordInfo', status: 'split' })).toBeGreaterThan(0);

    const pins = summary.stats['pins'] as { inserted: number; updated: number; deleted: number };
    expect(pins.inserted).toBeGreaterThan(0);
    expect(sample(families, 'efa_sync_rows', { relation: 'pins', op: 'inserted' })).toBe(pins.inserted);
    expect(sample(families, 'efa_sync_rows', { relation: 'pins', op: 'deleted' })).toBe(pins.deleted);
    const relations = new Set(families.find((f) => f.name === 'efa_sync_rows')?.metrics.map((m) => m.labels?.['relation']));
    expect([...relations].sort()).toEqual(Object.keys(summary.stats).filter((k) => !k.startsWith('_')).sort());
    expect(sample(families, 'efa_sync_coord_request_floor_ratio')).toBe(summary.coord?.ratio);
  });

  it('writes the last-success time for a succeeded run and carries it over a failed one', async () => {
    const ok: RunSummary = { ...summary, status: 'succeeded', exitCode: 0, failures: [] };
    const now = new Date('2026-11-23T01:00:00Z');
    const file = join(dir, 'efa_sync.prom');
    await writeMetricsFile(file, renderPrometheusMetrics(ok, 'metrics', { now }));
    expect(sample(parsePrometheusTextFormat(await readFile(file, 'utf8')), 'efa_sync_run_last_success_timestamp_seconds')).toBe(now.getTime() / 1000);

    const previous = await readLastSuccess(file, 'metrics');
    expect(previous).toBe(now.getTime() / 1000);
    const failed = renderPrometheusMetrics(summary, 'metrics', { now: new Date('2026-11-24T01:00:00Z'), ...(previous ? { previousLastSuccessS: previous } : {}) });
    await writeMetricsFile(file, failed);
    expect(sample(parsePrometheusTextFormat(await readFile(file, 'utf8')), 'efa_sync_run_last_success_timestamp_seconds')).toBe(now.getTime() / 1000);
    // Temp file renamed away: only the .prom file is left for the collector.
    expect(await readdir(dir)).toEqual(['efa_sync.prom']);
  });

  it('escapes label values', () => {
    const job = 'nightly "vvs"\\west\nline2';
    const families = parsePrometheusTextFormat(renderPrometheusMetrics(summary, job));
    expect(families.find((f) => f.name === 'efa_sync_run_status')?.metrics[0]?.labels?.['efa_job']).toBe(job);
  });
});
