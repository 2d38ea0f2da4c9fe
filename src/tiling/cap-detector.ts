import { makeTile } from './geo.js';
import { checkPositiveInt } from './options.js';
import type { BBox, Point, Tile } from './types.js';

/** What the trust checks need of one box answer. */
export interface BoxAnswer {
  /** Records received, parsed and rejected alike: what counts towards `max`. */
  readonly received: number;
  /**
   * Identities of the objects answered that stay put between two requests (not sharing vehicles,
   * which move): a sub-box answer holding one the box's answer lacked proves that answer was cut.
   */
  readonly keys: readonly string[];
  /** Where the answered objects lie. */
  readonly points: readonly Point[];
}

/**
 * Sends one box request with the sweep's own `max` and filters; undefined when it failed. Used only
 * for confirming requests: what they answer is never stored, and their boxes are not tiles of the run.
 */
export type AskBox = (tile: Tile) => Promise<BoxAnswer | undefined>;

export interface CapDetectorOptions {
  /**
   * A repeated count below this is never suspected: on a sparse region many tiles legitimately
   * hold exactly 0, 1 or 2 objects.
   */
  readonly minCount?: number;
  /** How many non-overlapping tiles planned from known pins must answer the identical count. */
  readonly minTiles?: number;
  /** Confirming requests per suspected count, at most (a failed one may be tried again). */
  readonly attempts?: number;
}

export interface CapObservation {
  /** The split threshold to judge this answer by: the job's max, or the server's confirmed silent cap. */
  readonly max: number;
  /**
   * Tiles judged complete before the cap was confirmed that answered it: they may lack objects
   * and are to be asked again (and split). Each is handed out once.
   */
  readonly redo: readonly Tile[];
}

export interface CapDetector {
  /**
   * Feeds one answer for `tile`, requested with `max`, before it is judged. Waits for a confirming
   * request under way (or sends one, through `ask`, when this answer completes a suspicion), so the
   * answer is judged by what it proved. Call it for every answer, full ones included.
   */
  observe(tile: Tile, answer: BoxAnswer, max: number, ask: AskBox): Promise<CapObservation>;
  /** The count the server silently stops at, once a confirming request proved it. */
  readonly effectiveCap: number | undefined;
  /** Confirming requests sent, and how many proved nothing (a suspicion that changed nothing). */
  readonly confirmations: { readonly sent: number; readonly cleared: number };
}

/** The split threshold an answer is judged by: the job's max, or the server's confirmed silent cap. */
export function effectiveMax(detector: CapDetector, maxPerRequest: number): number {
  return Math.min(maxPerRequest, detector.effectiveCap ?? Infinity);
}

/** Interiors intersect: tiles that only share an edge or a corner are separate evidence. */
function overlaps(a: BBox, b: BBox): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

const area = (b: BBox): number => (b[2] - b[0]) * (b[3] - b[1]);
const union = (a: BBox, b: BBox): BBox => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];

/** Tiles of a sweep are nested or disjoint: taking the smallest first keeps the most separate ones. */
function independentTiles(tiles: readonly Tile[]): Tile[] {
  const kept: Tile[] = [];
  for (const t of [...tiles].sort((a, b) => area(a.bbox) - area(b.bbox))) if (!kept.some((k) => overlaps(k.bbox, t.bbox))) kept.push(t);
  return kept;
}

/** The quarter of `b` holding the fewest of `points`: where a cut answer most likely left objects out. */
function emptiestQuarter(b: BBox, points: readonly Point[]): BBox {
  const midLon = (b[0] + b[2]) / 2;
  const midLat = (b[1] + b[3]) / 2;
  const quarters: BBox[] = [
    [b[0], b[1], midLon, midLat],
    [midLon, b[1], b[2], midLat],
    [b[0], midLat, midLon, b[3]],
    [midLon, midLat, b[2], b[3]],
  ];
  const counts = quarters.map((q) => points.filter((p) => p.lon >= q[0] && p.lon <= q[2] && p.lat >= q[1] && p.lat <= q[3]).length);
  return quarters[counts.indexOf(Math.min(...counts))] as BBox;
}

/**
 * Notices a server that cuts answers at a count below the requested `max` without saying so, and
 * believes it only once a request has proved it.
 *
 * Such a server answers every box holding more than its cap c with exactly c objects, and never
 * `max`. So nothing is suspected once any answer has reached `max`, nor a count some answer below
 * `max` exceeded. A count c is suspected when the tile it came from had no expectation (a night
 * without known pins: its first answer below max is checked), or when at least `minTiles`
 * non-overlapping tiles planned from known pins answered exactly c, fewer than the plan knew there
 * (tiles planned at pin medians hold nearly equal counts by design, so equal counts alone are no
 * evidence). A suspicion changes nothing until one confirming request proves it:
 * - two suspect tiles: the box uniting them must answer exactly c again (an honest server answers
 *   both tiles' objects, or `max`: more than c either way);
 * - one suspect tile: its emptiest quarter must answer an object the tile's answer lacked (an honest,
 *   complete answer holds every object of every part of its box).
 * A cleared count is never suspected again. Once the cap is confirmed, the tiles that answered it
 * earlier and were judged complete are handed back to be asked again.
 */
export function createCapDetector(opts: CapDetectorOptions = {}): CapDetector {
  const minCount = checkPositiveInt('minCount', opts.minCount ?? 10);
  const minTiles = checkPositiveInt('minTiles', opts.minTiles ?? 3);
  const attempts = checkPositiveInt('attempts', opts.attempts ?? 2);
  /** Every tile that answered below max, by count, until a cap is confirmed (the ones to ask again). */
  const byCount = new Map<number, Tile[]>();
  /** Per count, the tiles whose answer is evidence of a cap at it. */
  const evidence = new Map<number, Tile[]>();
  const cleared = new Set<number>();
  const tried = new Map<number, number>();
  let largest = -1;
  let sawFull = false;
  let cap: number | undefined;
  let pending: Promise<void> | undefined;
  const stats = { sent: 0, cleared: 0 };

  /** 'unknown' when the confirming request failed: the count stays suspect, to be tried again. */
  const confirm = async (c: number, tile: Tile, answer: BoxAnswer, ask: AskBox): Promise<'proved' | 'cleared' | 'unknown'> => {
    tried.set(c, (tried.get(c) ?? 0) + 1);
    stats.sent += 1;
    const suspects = independentTiles(evidence.get(c) ?? []);
    if (suspects.length >= 2) {
      // The two whose union is smallest: usually neighbours, so the box adds little beyond them.
      let best: BBox | undefined;
      for (let i = 0; i < suspects.length; i++) {
        for (let j = i + 1; j < suspects.length; j++) {
          const u = union((suspects[i] as Tile).bbox, (suspects[j] as Tile).bbox);
          if (best === undefined || area(u) < area(best)) best = u;
        }
      }
      const united = await ask(makeTile(best as BBox, 0));
      if (united === undefined) return 'unknown';
      return united.received === c ? 'proved' : 'cleared';
    }
    const quarter = await ask(makeTile(emptiestQuarter(tile.bbox, answer.points), tile.depth + 1, tile.id));
    if (quarter === undefined) return 'unknown';
    const had = new Set(answer.keys);
    return quarter.keys.some((k) => !had.has(k)) ? 'proved' : 'cleared';
  };

  const observation = (current: Tile, redo: Tile[] = []): CapObservation => ({ max: cap ?? Infinity, redo: redo.filter((t) => t.id !== current.id) });

  return {
    async observe(tile, answer, max, ask) {
      checkPositiveInt('max', max);
      const received = answer.received;
      const done = (redo: Tile[] = []): CapObservation => {
        const o = observation(tile, redo);
        return { max: Math.min(max, o.max), redo: o.redo };
      };
      if (!Number.isInteger(received) || received < 0) return done();
      // A confirmation under way decides how this answer is judged.
      while (pending !== undefined) await pending;
      if (cap !== undefined) return done();
      if (received >= max) {
        // The server answers max: it has no silent cap below it.
        sawFull = true;
        return done();
      }
      if (received < 1) return done();
      byCount.set(received, [...(byCount.get(received) ?? []), tile]);
      if (received > largest) largest = received;
      if (tile.known === undefined || received < tile.known) evidence.set(received, [...(evidence.get(received) ?? []), tile]);
      const c = received;
      if (sawFull || c !== largest || c < minCount || cleared.has(c) || (tried.get(c) ?? 0) >= attempts) return done();
      const planned = independentTiles((evidence.get(c) ?? []).filter((t) => t.known !== undefined)).length;
      const suspected = tile.known === undefined || planned >= minTiles;
      if (!suspected) return done();
      const check = confirm(c, tile, answer, ask);
      // Others wait for the outcome, not for its error: a failed check is this answer's to report.
      pending = check.then(
        () => undefined,
        () => undefined,
      ).then(() => {
        pending = undefined;
      });
      const outcome = await check;
      if (outcome === 'cleared') {
        cleared.add(c);
        stats.cleared += 1;
      }
      if (outcome !== 'proved') return done();
      cap = c;
      const redo = byCount.get(c) ?? [];
      byCount.clear();
      evidence.clear();
      return done(redo);
    },
    get effectiveCap() {
      return cap;
    },
    get confirmations() {
      return { ...stats };
    },
  };
}
