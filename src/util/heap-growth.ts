import { setFlagsFromString } from 'node:v8';

/**
 * V8's heap growing factor for a run, in percent: each full collection lets the heap grow by half of
 * what it kept, not by up to four times (V8's default when collections are fast). A night's live heap
 * stays small (about 35 MB at a million pins), but its answers are parsed, turned into rows and
 * written as garbage at a high rate, and V8 let that garbage grow the heap to about 190 MB, which
 * decided the process's peak RSS (246-371 MB at 1M on PostgreSQL).
 */
export const BOUNDED_HEAP_GROWING_PERCENT = 50;

/**
 * Bounds the heap's growth for the rest of the process, from the run's start. V8 reads the flag at
 * every collection's new limit, so set at run time it holds from the next one.
 *
 * Until 27 Nov 2026 the bound waited for the heap to pass 96 MB, so that a small run kept V8's
 * default; but a run's heap is 52-58 MB once its modules are loaded, and on a million-pin night two
 * the limit V8 had set before the bound let the first seconds of the sweep grow the heap to 173 MB:
 * peak RSS 280-320 MB against 222-258 MB bounded from the start (docs/benchmarks.md). A small run's
 * few collections of a small heap cost it nothing it would notice.
 *
 * An operator who set `--heap-growing-percent` on the command line keeps theirs: nothing is changed
 * then. Returns whether the bound was set.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${BOUNDED_HEAP_GROWING_PERCENT}`);
  return true;
}
