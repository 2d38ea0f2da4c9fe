/**
 * The scale bench's cases (`BENCH_SCALE_CASES`: `<pg|pglite>:<pins>[:<dialect>]`), what one measured
 * case holds, and the comparison of cases that differ only in their dialect.
 */
import type { RunSummary } from '../src/run/index.js';
import { SIM_DIALECTS, type SimDialect } from '../src/sim/render/index.js';
import { int, type BenchLine } from './util.js';

export type DbKind = 'pg' | 'pglite';

export interface ScaleCase {
  readonly db: DbKind;
  readonly size: number;
  /** The simulator's and the job's dialect; unset: json, the default of both. */
  readonly dialect?: SimDialect;
}

/** One night of one case, measured. */
export interface NightResult {
  readonly night: 1 | 2;
  readonly status: string;
  /** Set when a phase ran past the limit and the run was stopped. */
  readonly stopped?: string;
  readonly wallMs: number;
  /** From the run's "sweeps done after N s" log line: known even for a run stopped in its finalisation. */
  readonly sweepS?: number;
  readonly peakRss?: number;
  readonly summary?: RunSummary;
  readonly replayMs?: number;
  readonly replayRequests?: number;
}

export interface CaseResult {
  readonly c: ScaleCase;
  readonly nights: NightResult[];
  readonly copyMs?: number;
  readonly copyRows?: number;
  readonly error?: string;
}

export function parseCases(text: string): ScaleCase[] {
  return text.split(',').map((part) => {
    const m = /^\s*(pg|pglite):(\d+)(?::(\w+))?\s*$/.exec(part);
    if (!m) throw new Error(`BENCH_SCALE_CASES: "${part}" is not <pg|pglite>:<pins>[:<dialect>], e.g. pg:200000 or pg:200000:xml`);
    const dialect = m[3] as SimDialect | undefined;
    if (dialect !== undefined && !SIM_DIALECTS.includes(dialect)) throw new Error(`BENCH_SCALE_CASES: "${part}": the dialect is one of ${SIM_DIALECTS.join(', ')}`);
    return { db: m[1] as DbKind, size: Number(m[2]), ...(dialect === undefined ? {} : { dialect }) };
  });
}

export const caseName = (c: ScaleCase): string => `${c.db} ${int(c.size / 1000)}k${c.dialect === undefined ? '' : ` ${c.dialect}`}`;

/**
 * Cases that differ only in their dialect, night by night, beside the legacy one of their database and
 * size (the dialect issue 46 measures xml against), else the first of them.
 */
export function dialectRatios(results: readonly CaseResult[]): BenchLine[] {
  const lines: BenchLine[] = [];
  const runS = (r: CaseResult, night: 1 | 2): number | undefined => r.nights.find((n) => n.night === night)?.summary?.durationS;
  for (const r of results) {
    const peers = results.filter((o) => o.c.db === r.c.db && o.c.size === r.c.size);
    const base = peers.find((o) => o.c.dialect === 'legacy') ?? peers[0];
    if (base === undefined || base === r || peers.length < 2) continue;
    for (const night of [1, 2] as const) {
      const [mine, theirs] = [runS(r, night), runS(base, night)];
      if (mine === undefined || theirs === undefined) continue;
      lines.push({ metric: `${caseName(r.c)} night ${night}: whole run`, value: `${mine.toFixed(1)} s`, baseline: `${caseName(base.c)} ${theirs.toFixed(1)} s`, ratio: `${(mine / theirs).toFixed(2)}x` });
    }
  }
  return lines;
}
