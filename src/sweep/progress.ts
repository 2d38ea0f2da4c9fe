import type { Logger } from '../util/log.js';

export interface ProgressSource {
  /** Requests sent so far (every attempt). */
  requests(): number;
}

/**
 * Progress of a run: on a terminal, a bar in the logger's status line (below the log lines, redrawn
 * in place; a log line never lands inside it); otherwise a log line every few seconds (cron mail,
 * journald and Kubernetes logs want lines, not carriage returns).
 */
export class Progress {
  #total = 0;
  #done = 0;
  #errors = 0;
  #phase = '';
  readonly #started = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #lastLine = 0;

  constructor(
    private readonly log: Logger,
    private readonly source: ProgressSource,
    private readonly mode: 'bar' | 'lines' | 'off',
  ) {}

  start(): void {
    if (this.mode === 'off') return;
    this.#timer = setInterval(() => this.#render(), this.mode === 'bar' ? 250 : 1000);
    this.#timer.unref();
  }

  phase(name: string): void {
    this.#phase = name;
    if (this.mode === 'lines') this.log.info(`sweeping ${name}`);
  }

  addTotal(n: number): void {
    this.#total += n;
  }

  unitDone(failed = false): void {
    this.#done += 1;
    if (failed) this.#errors += 1;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.mode === 'bar') this.log.status?.(undefined);
  }

  snapshot(): { phase: string; done: number; total: number; requests: number; rate: number; errors: number; etaS: number | null } {
    const elapsed = (Date.now() - this.#started) / 1000;
    const requests = this.source.requests();
    const rate = elapsed > 0 ? requests / elapsed : 0;
    const perUnit = this.#done > 0 ? elapsed / this.#done : 0;
    const etaS = this.#done > 0 && this.#total > this.#done ? Math.round(perUnit * (this.#total - this.#done)) : null;
    return { phase: this.#phase, done: this.#done, total: this.#total, requests, rate: Math.round(rate * 10) / 10, errors: this.#errors, etaS };
  }

  #render(): void {
    const s = this.snapshot();
    if (this.mode === 'bar') {
      const width = 24;
      const filled = s.total > 0 ? Math.min(width, Math.round((s.done / s.total) * width)) : 0;
      const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
      const eta = s.etaS === null ? '' : ` · ETA ${s.etaS}s`;
      this.log.status?.(`${s.phase} [${bar}] ${s.done}/${s.total} · ${s.requests} req · ${s.rate} req/s · ${s.errors} errors${eta}`);
    } else if (Date.now() - this.#lastLine >= 5000) {
      this.#lastLine = Date.now();
      this.log.info('progress', s);
    }
  }
}
