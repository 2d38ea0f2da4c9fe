/**
 * How long the session's owner may sit idle inside a transaction (or mid-batch) while it holds the
 * one session: `idleInTransactionMs` when nobody waits; when others wait, what is left of the
 * IDLE_WHILE_OTHERS_WAIT_MS each waiting client waits on idle owners in all. Six clients each holding
 * a transaction open for the whole allowance in turn made a `select 1` wait 28 s; now the waiting
 * client's account bounds it, however many owners come before it.
 */

export const IDLE_WHILE_OTHERS_WAIT_MS = 5_000;

/** A waiting client's account of time spent waiting on idle owners. */
export interface IdleAccount {
  idleWaitedMs: number;
}

export class IdleAllowance {
  private timer: NodeJS.Timeout | undefined;
  /** When the owner went idle, or when its idle time was last charged to those waiting. */
  private since = 0;

  constructor(private readonly idleInTransactionMs: number) {}

  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the owner's allowance; `expired` is told the allowance it had, in ms. Does nothing when armed already or the bound is off. */
  arm(waiting: readonly IdleAccount[], expired: (allowanceMs: number) => void): void {
    if (this.timer !== undefined || this.idleInTransactionMs <= 0) return;
    const waited = Math.max(0, ...waiting.map((w) => w.idleWaitedMs));
    const allowance = waiting.length === 0 ? this.idleInTransactionMs : Math.max(0, Math.min(this.idleInTransactionMs, IDLE_WHILE_OTHERS_WAIT_MS) - waited);
    this.since = Date.now();
    this.timer = setTimeout(() => {
      this.charge(waiting);
      this.timer = undefined;
      expired(allowance);
    }, allowance);
    this.timer.unref();
  }

  /** The owner is no longer idle (or left): its idle time so far is charged to those waiting. */
  clear(waiting: readonly IdleAccount[]): void {
    this.charge(waiting);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Adds the owner's idle time so far to every waiting client's account. */
  charge(waiting: readonly IdleAccount[]): void {
    if (this.timer === undefined) return;
    const now = Date.now();
    for (const w of waiting) w.idleWaitedMs += now - this.since;
    this.since = now;
  }
}
