import type { Logger } from '../../util/log.js';

export interface ProgressSource {
  /** Requests sent so far (every attempt). */
  requests(): number;
  /** Of them, retries (a retry that then succeeded is not a failure). */
  retries(): number;
  /** The rate the scheduler allows now (the ceiling, or lower after backoff), req/s. */
  allowedRate(): number;
}

export interface ProgressOptions {
  /**
   * The plan's estimate of the run's units (requests without retries), all phases together: the
   * ETA counts on it from the start, so it does not jump when a phase adds its units.
   */
  readonly plannedUnits?: number;
  /** Injectable for tests. */
  readonly now?: () => number;
}

export interface ProgressSnapshot {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
  readonly requests: number;
  readonly rate: number;
  readonly retries: number;
  /** Units that failed for good (after every retry). */
  readonly failed: number;
  readonly etaS: number | null;
}

/** Units done before the split ratio is trusted to project future splits (and an ETA is shown). */
const minUnitsForEta = 10;
/** Time constant of the smoothing of the observed rate, seconds. */
const smoothingS = 10;
/** Time constant with which the ETA follows its raw estimate, seconds (beyond counting down with the clock). */
const etaSmoothingS = 5;
/**
 * New units per finished unit, at most, for the projection (at most twice the units left). The top
 * of a tile tree splits more than its leaves will: the ratio seen early overstates the rest.
 */
const maxSplitShare = 0.5;

/**
 * Progress of a run: on a terminal, a bar in the logger's status line (below the log lines, redrawn
 * in place; a log line never lands inside it); otherwise a log line every few seconds (cron mail,
 * journald and Kubernetes logs want lines, not carriage returns).
 *
 * Retries and failed units are counted apart: a retry that succeeded is no error.
 *
 * The ETA: the units left (the plan's estimate plus the split children seen, or the units known,
 * whichever is more), plus the splits those are expected to make at the ratio seen so far, times
 * the requests per unit seen (retries included), divided by min(allowed rate, observed rate); then
 * smoothed, so that a tile splitting moves it by seconds, not by minutes.
 */
export class Progress {
  #total = 0;
  #done = 0;
  #failed = 0;
  #splitChildren = 0;
  #phase = '';
  /** The current phase's own units, done and split children: only its units are expected to split. */
  #phaseUnits = 0;
  #phaseDone = 0;
  #phaseSplit = 0;
  readonly #now: () => number;
  readonly #started: number;
  readonly #plannedUnits: number;
  #requestsAtStart: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastLine = 0;
  #lastTick: { at: number; requests: number } | undefined;
  #observedRate: number | undefined;
  #eta: { at: number; s: number } | undefined;

  constructor(
    private readonly log: Logger,
    private readonly source: ProgressSource,
    private readonly mode: 'bar' | 'lines' | 'off',
    options: ProgressOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
    this.#plannedUnits = options.plannedUnits ?? 0;
  }

  start(): void {
    this.#requestsAtStart = this.source.requests();
    if (this.mode === 'off') return;
    this.#timer = setInterval(() => this.#render(), this.mode === 'bar' ? 250 : 1000);
    this.#timer.unref();
  }

  phase(name: string): void {
    this.#phase = name;
    this.#phaseUnits = 0;
    this.#phaseDone = 0;
    this.#phaseSplit = 0;
    if (this.mode === 'lines') this.log.info(`sweeping ${name}`);
  }

  addTotal(n: number): void {
    this.#total += n;
    this.#phaseUnits += n;
  }

  /** A unit split into `children` new units (counted in the total, and towards the split ratio). */
  split(children: number): void {
    this.#total += children;
    this.#splitChildren += children;
    this.#phaseSplit += children;
  }

  unitDone(failed = false): void {
    this.#done += 1;
    this.#phaseDone += 1;
    if (failed) this.#failed += 1;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.mode === 'bar') this.log.status?.(undefined);
  }

  snapshot(): ProgressSnapshot {
    const now = this.#now();
    const elapsed = (now - this.#started) / 1000;
    const requests = this.source.requests();
    this.#observe(now, requests);
    const rate = elapsed > 0 ? requests / elapsed : 0;
    return {
      phase: this.#phase, done: this.#done, total: this.#total, requests, rate: Math.round(rate * 10) / 10,
      retries: this.source.retries(), failed: this.#failed, etaS: this.#smoothedEta(now, requests),
    };
  }

  /** The observed request rate, smoothed over about `smoothingS` seconds. */
  #observe(now: number, requests: number): void {
    const last = this.#lastTick;
    this.#lastTick = { at: now, requests };
    if (!last || now <= last.at) return;
    const dt = (now - last.at) / 1000;
    const instant = (requests - last.requests) / dt;
    const w = 1 - Math.exp(-dt / smoothingS);
    this.#observedRate = this.#observedRate === undefined ? instant : this.#observedRate + w * (instant - this.#observedRate);
  }

  /** The ETA before smoothing, seconds; undefined while too little is known. */
  #rawEta(requests: number): number | undefined {
    if (this.#done < minUnitsForEta || this.#observedRate === undefined) return undefined;
    // The current phase's units left, and each of them making as many new ones as its finished
    // units did on average (only CoordInfo tiles split; a phase without splits projects none).
    const phaseLeft = Math.max(0, this.#phaseUnits + this.#phaseSplit - this.#phaseDone);
    const splitShare = this.#phaseDone >= minUnitsForEta ? Math.min(maxSplitShare, this.#phaseSplit / this.#phaseDone) : 0;
    // The phases still to come: what the plan expects beyond the units already known.
    const laterPhases = Math.max(0, this.#plannedUnits + this.#splitChildren - this.#done - phaseLeft, this.#total - this.#done - phaseLeft);
    const unitsLeft = phaseLeft / (1 - splitShare) + laterPhases;
    const sent = requests - (this.#requestsAtStart ?? 0);
    const requestsPerUnit = Math.max(1, sent / this.#done);
    const rate = Math.min(this.source.allowedRate(), this.#observedRate);
    if (!(rate > 0)) return undefined;
    return (unitsLeft * requestsPerUnit) / rate;
  }

  /** The ETA counts down with the clock and moves towards the raw estimate gradually. */
  #smoothedEta(now: number, requests: number): number | null {
    const raw = this.#rawEta(requests);
    if (raw === undefined) return this.#eta ? Math.max(0, Math.round(this.#eta.s - (now - this.#eta.at) / 1000)) : null;
    if (!this.#eta) {
      this.#eta = { at: now, s: raw };
    } else {
      const dt = Math.max(0, (now - this.#eta.at) / 1000);
      const counted = Math.max(0, this.#eta.s - dt);
      const w = 1 - Math.exp(-dt / etaSmoothingS);
      this.#eta = { at: now, s: counted + w * (raw - counted) };
    }
    return Math.round(this.#eta.s);
  }

  #render(): void {
    const s = this.snapshot();
    if (this.mode === 'bar') {
      const width = 24;
      const filled = s.total > 0 ? Math.min(width, Math.round((s.done / s.total) * width)) : 0;
      const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
      const eta = s.etaS === null ? '' : ` · ETA ${formatDuration(s.etaS)}`;
      this.log.status?.(`${s.phase} [${bar}] ${s.done}/${s.total} · ${s.requests} req · ${s.rate} req/s · ${s.retries} retries · ${s.failed} failed${eta}`);
    } else if (this.#now() - this.#lastLine >= 5000) {
      this.#lastLine = this.#now();
      this.log.info('progress', { ...s });
    }
  }
}

/** 75 -> "1m15s", 3700 -> "1h01m": an ETA people read at a glance. */
export function formatDuration(s: number): string {
  const t = Math.max(0, Math.round(s));
  if (t < 60) return `${t}s`;
  if (t < 3600) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`;
  return `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m`;
}
