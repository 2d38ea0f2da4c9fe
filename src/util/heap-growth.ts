import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * V8's heap growing factor once a run's heap is large, in percent: each full collection then lets
 * the heap grow by half of what it kept, not by up to four times (V8's default when collections are
 * fast). A night's live heap stays small (about 35 MB at a million pins), but its answers are parsed,
 * turned into rows and written as garbage at a high rate, and V8 let that garbage grow the heap to
 * about 190 MB, which decided the process's peak RSS (246-371 MB at 1M on PostgreSQL).
 */
export const BOUNDED_HEAP_GROWING_PERCENT = 50;

/**
 * Total heap past which the growth is bounded. A small run never reaches it and keeps V8's default
 * (fewer collections, the fastest run); a big one pays more frequent collections for a bounded peak.
 * Measured on 25 Nov (bench --only scale, two rounds each): peak RSS at 1M 214-283 MB bounded against
 * 281-371 MB unbounded, at 200k 191-237 against 247-262 MB; an unchanged night two took 5-16 % longer.
 */
export const HEAP_BOUND_AT_BYTES = 96 * 1024 * 1024;

/** How often the heap is looked at: a look is a few microseconds. */
const LOOK_EVERY_MS = 200;

export interface HeapGrowthOptions {
  /** Default HEAP_BOUND_AT_BYTES. */
  readonly atBytes?: number;
  /** The process's own V8 flags (default process.execArgv): an operator's --heap-growing-percent is kept. */
  readonly execArgv?: readonly string[];
  /** Told once, when the bound is set, with the heap's total then. */
  readonly onBound?: (heapBytes: number) => void;
}

export interface HeapGrowthBound {
  /** Whether the bound has been set (the heap passed the threshold). */
  readonly bounded: boolean;
  stop(): void;
}

/**
 * Bounds the heap's growth once its total passes `atBytes`, for the rest of the process. An operator
 * who set `--heap-growing-percent` on the command line keeps theirs: nothing is changed then.
 */
export function boundHeapGrowth(o: HeapGrowthOptions = {}): HeapGrowthBound {
  const { atBytes = HEAP_BOUND_AT_BYTES, execArgv = process.execArgv, onBound } = o;
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return { bounded: false, stop: () => undefined };
  let bounded = false;
  const look = (): void => {
    const heapBytes = getHeapStatistics().total_heap_size;
    if (heapBytes < atBytes) return;
    // Read by V8 at every collection's new limit, so a flag set at run time takes effect at the next one.
    setFlagsFromString(`--heap-growing-percent=${BOUNDED_HEAP_GROWING_PERCENT}`);
    bounded = true;
    clearInterval(timer);
    onBound?.(heapBytes);
  };
  const timer = setInterval(look, LOOK_EVERY_MS);
  timer.unref();
  look();
  return {
    get bounded() {
      return bounded;
    },
    stop: () => clearInterval(timer),
  };
}
