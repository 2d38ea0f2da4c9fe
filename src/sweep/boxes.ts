import type { EfaResult, Pin } from '../efa/index.js';
import { errorText, isFatal } from '../errors.js';
import { drainQueue } from './nightly/queue.js';
import type { AskBox, Tile } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import { redactText } from '../util/redact.js';
import { boxAnswer } from './judge.js';
import type { TileOutcome } from './outcome.js';
import type { BoxStep } from './step.js';

/**
 * Where a kind of run keeps what its box sweep decided: the nightly sweep commits each tile in its
 * own transaction, a snapshot gathers rows for one COPY, the tiling bench counts in memory.
 */
export interface BoxSink {
  /** What a failed or an incomplete tile means for this kind of run, said after the reason in the log. */
  readonly consequence?: { readonly failed?: string; readonly incomplete?: string };
  /** An answer arrived, before it is judged (the nightly sweep keeps the server's messages here). */
  answered?(tile: Tile, result: EfaResult<Pin>): void;
  /** Tiles judged before a silent cap was proved, to be asked again: their next outcome replaces the first. */
  redo?(tiles: readonly Tile[]): void;
  /** Keeps one tile's outcome; `startedAt` is when its request was sent. A throw here fails the sweep. */
  take(tile: Tile, outcome: TileOutcome, startedAt: number): Promise<void> | void;
}

export interface BoxSweepOptions {
  /** Requests in flight at once (the job's rateLimit.concurrency; the client keeps the rate). */
  readonly concurrency: number;
  readonly log: Logger;
  readonly secrets?: readonly string[];
}

export interface BoxSweepEnd {
  /** Requests for tiles of the sweep, re-asked ones included. */
  readonly requests: number;
  /** Confirming requests (a suspected silent cap, a spatial probe): sent, never stored, never tiles. */
  readonly confirming: number;
}

/**
 * Asks every tile once, newest first (a split's children before far-away work), `concurrency` at a
 * time; each answer goes through the step, and its outcome to the sink; a split's children and the
 * tiles to ask again join the queue. A fatal error (configuration, a lost lease) ends the sweep once
 * the requests in flight have settled; any other failure of a request is that tile's outcome.
 */
export async function sweepBoxes(
  tiles: readonly Tile[],
  request: (tile: Tile) => Promise<EfaResult<Pin>>,
  step: BoxStep,
  sink: BoxSink,
  o: BoxSweepOptions,
): Promise<BoxSweepEnd> {
  const { log, secrets = [] } = o;
  const label = step.label;
  let requests = 0;
  let confirming = 0;
  const ask: AskBox = async (probe) => {
    confirming += 1;
    try {
      return boxAnswer(await request(probe));
    } catch (error) {
      if (isFatal(error)) throw error;
      log.debug(`${label} confirming request for ${probe.id} failed: ${redactText(errorText(error), secrets)}`);
      return undefined;
    }
  };
  const say = (tile: Tile, outcome: TileOutcome): void => {
    if (outcome.kind === 'failed') log.warn(`${label} tile ${tile.id} failed: ${outcome.error}${sink.consequence?.failed ?? ''}`);
    if (outcome.kind !== 'kept') return;
    if (outcome.unsplit === 'too-small') {
      log.warn(`${label} tile ${tile.id} is capped at ${outcome.received} records and too small to split; some objects may be missing`);
    }
    if (outcome.status === 'incomplete') log.warn(`${label} tile ${tile.id}: ${outcome.reason ?? 'records rejected'}; ${sink.consequence?.incomplete ?? 'objects may be missing there'}`);
  };

  await drainQueue(tiles, o.concurrency, async (tile) => {
    const startedAt = Date.now();
    requests += 1;
    let result: EfaResult<Pin>;
    try {
      result = await request(tile);
    } catch (error) {
      if (isFatal(error)) throw error;
      const outcome = step.failure(tile, error);
      say(tile, outcome);
      await sink.take(tile, outcome, startedAt);
      return [];
    }
    sink.answered?.(tile, result);
    const { outcome, redo } = await step.answer(tile, result, ask);
    if (redo.length > 0) {
      log.info(`${label}: ${redo.length} tile(s) answered the server's silent cap of ${step.silentCap ?? '?'} before it was confirmed: asking them again`);
      sink.redo?.(redo);
    }
    say(tile, outcome);
    await sink.take(tile, outcome, startedAt);
    return [...redo, ...(outcome.kind === 'split' ? outcome.children : [])];
  });
  return { requests, confirming };
}
