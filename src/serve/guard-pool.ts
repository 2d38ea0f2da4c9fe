import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../util/worker-entry.js';
import { tooComplex, verdictWithoutParse, type GuardVerdict } from './guard.js';
import type { GuardReply, GuardRequest } from './guard-worker.js';

/**
 * The statement check off the proxy's thread: one parser per worker thread (guard-worker.ts), at
 * most one per CPU and two in all. A hostile statement (a 64,000-term sum) made the parser throw
 * past itself and a later parse spin for good on the proxy's thread: no client answered, SIGTERM
 * unheard. Here a statement that is not checked within `deadlineMs`, or that breaks its parser,
 * is refused as too complex (54001) and its worker replaced by a fresh one; the proxy's thread
 * and the other workers go on.
 *
 * Each client has at most one statement here at a time (wire.ts reads its next message once the
 * verdict is in), and they are taken in turn: a client waits behind at most one statement of each
 * other client, each bounded by the deadline.
 */

/** How long one statement's parse and check may take: a 1 MB IN list takes about 0.5 s. */
export const CHECK_DEADLINE_MS = 2_000;

interface Job {
  readonly request: GuardRequest;
  readonly resolve: (verdict: GuardVerdict) => void;
}

interface Parser {
  readonly worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export interface GuardPoolOptions {
  readonly size?: number;
  readonly deadlineMs?: number;
  /** Told when a parser is replaced (for the log). */
  readonly onProblem?: (what: string) => void;
}

export class GuardPool {
  private readonly parsers = new Set<Parser>();
  private readonly queue: Job[] = [];
  private next = 1;
  private stopped = false;
  private readonly size: number;
  private readonly deadlineMs: number;

  constructor(private readonly options: GuardPoolOptions = {}) {
    this.size = options.size ?? Math.max(1, Math.min(2, availableParallelism()));
    this.deadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  }

  /** Starts the parsers; resolves once each has loaded (a broken install fails here, before clients come). */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.spawn()));
  }

  /** The verdict on `sql`: never rejects, never waits longer than the deadline once a parser takes it. */
  check(sql: string, write: boolean): Promise<GuardVerdict> {
    const early = verdictWithoutParse(sql);
    if (early !== undefined) return Promise.resolve(early);
    if (this.stopped) return Promise.resolve(tooComplex('serve is stopping'));
    return new Promise((resolve) => {
      this.queue.push({ request: { id: this.next++, sql, write }, resolve });
      this.dispatch();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.queue.splice(0)) job.resolve(tooComplex('serve is stopping'));
    const parsers = [...this.parsers];
    this.parsers.clear();
    for (const parser of parsers) this.settle(parser, tooComplex('serve is stopping'));
    await Promise.all(parsers.map((p) => p.worker.terminate()));
  }

  private spawn(): Promise<void> {
    const { url, execArgv } = workerEntry('guard-worker', import.meta.url);
    const worker = new Worker(url, { execArgv });
    // A parser never keeps serve's process alive: stopping must not wait on one.
    worker.unref();
    const parser: Parser = { worker, ready: false };
    this.parsers.add(parser);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: GuardReply) => {
        if ('ready' in reply) {
          parser.ready = true;
          resolve();
          this.dispatch();
          return;
        }
        if (parser.job?.request.id !== reply.id) return;
        this.settle(parser, reply.verdict);
        if (reply.verdict.parserBroken === true) this.replace(parser, 'the statement check broke its parser');
        else this.dispatch();
      });
      worker.on('error', (e) => {
        if (!parser.ready) return this.failedToStart(parser, reject, e);
        this.settle(parser, tooComplex(`the parser failed: ${e.message}`));
        this.replace(parser, `the statement check's parser failed (${e.message})`);
      });
      worker.on('exit', (code) => {
        if (!parser.ready) return this.failedToStart(parser, reject, new Error(`the statement check's parser exited with code ${code} while loading`));
        this.settle(parser, tooComplex('the parser stopped'));
        this.replace(parser, `the statement check's parser exited with code ${code}`);
      });
    });
  }

  private failedToStart(parser: Parser, reject: (e: Error) => void, e: Error): void {
    this.parsers.delete(parser);
    reject(e);
  }

  /** Ends `parser` (unless it is gone already) and starts a fresh one in its place: a fresh WebAssembly instance. */
  private replace(parser: Parser, why: string): void {
    if (!this.parsers.delete(parser)) return;
    void parser.worker.terminate();
    this.options.onProblem?.(`${why}: starting a fresh one`);
    this.respawn();
  }

  private respawn(): void {
    if (this.stopped) return;
    this.spawn().catch((e: unknown) => {
      this.options.onProblem?.(`the statement check's parser did not start again (${e instanceof Error ? e.message : String(e)}): trying again in 1 s`);
      // Statements wait for it meanwhile, or another parser takes them.
      setTimeout(() => this.respawn(), 1000).unref();
    });
  }

  /** Answers the job `parser` holds, if any, with `verdict`. */
  private settle(parser: Parser, verdict: GuardVerdict): void {
    clearTimeout(parser.timer);
    const job = parser.job;
    delete parser.job;
    delete parser.timer;
    job?.resolve(verdict);
  }

  /** Hands waiting statements to idle parsers, each with its deadline. */
  private dispatch(): void {
    for (const parser of this.parsers) {
      if (this.queue.length === 0) return;
      if (!parser.ready || parser.job !== undefined) continue;
      const job = this.queue.shift() as Job;
      parser.job = job;
      parser.timer = setTimeout(() => {
        this.settle(parser, tooComplex(`not checked within ${this.deadlineMs / 1000} s`));
        this.replace(parser, `a statement was not checked within ${this.deadlineMs / 1000} s`);
        this.dispatch();
      }, this.deadlineMs);
      parser.worker.postMessage(job.request);
    }
  }
}
