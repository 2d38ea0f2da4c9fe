import type { Tile } from './types.js';

/**
 * What a run has learnt from its CoordInfo answers about how many pins its tiles hold.
 *
 * One capped answer cannot tell how many pins its box holds: the server's order of a capped answer
 * is not documented, and under an arbitrary order (by id, insertion, random) the hits are a thinned
 * sample that shows where pins are but not how many. Only uncapped answers count. So every split
 * writes down what share of its parent's expected pins each child should hold, and every answer is
 * fed back here: an uncapped child gives the exact pins per share of its parent, a capped child a
 * lower bound, and a tile whose children have all answered uncapped is known exactly itself. When a
 * capped tile is split, its siblings that have answered say how far the estimate of their common
 * parent was off, and so what this tile holds; with no sibling answered yet, the same question is
 * asked one level up. A run that learns the scale once (one subtree swept to the bottom) sizes the
 * splits of every sibling after it.
 *
 * The memory only sizes splits; it never decides what a tile owns, so a wrong or missing entry (a
 * resumed run, answers arriving in any order) costs requests, never pins. Safe to consult at any time.
 */
export interface SplitMemory {
  /**
   * Feeds one answer: `received` records for `tile`, `capped` when that count reached the cap. Call it
   * for every answer the sweep keeps (capped ones too), before splitting a capped tile.
   */
  observe(tile: Tile, received: number, capped: boolean): void;
  /** The pins `tile` is expected to hold from what siblings and ancestors showed, if it was planned by a split. */
  expectedTotal(tile: Tile): number | undefined;
  /**
   * The pins a capped `tile` is taken to hold: the estimate from its siblings and ancestors and the one
   * read from its own answer (`fromAnswer`), weighted by how well each kind has matched the tiles
   * whose counts became exact in this run. Both are remembered, to be judged when this tile's count is known.
   */
  estimateTotal(tile: Tile, fromAnswer: number, atLeast: number): number;
  /**
   * Records a split: `estimate` pins expected in the parent, `shares` of that estimate per child
   * (summing to at most 1; children dropped outside a polygon region are simply left out).
   */
  recordSplit(parent: Tile, estimate: number, children: readonly { readonly tile: Tile; readonly share: number }[]): void;
}

interface Node {
  readonly parent: Node | undefined;
  /** Share of the parent's estimated pins this tile was cut to hold. */
  readonly share: number;
  state: 'pending' | 'exact' | 'capped';
  /** Records answered: exact when `state` is exact, the cap when capped. */
  count: number;
  /** Set once the tile is split: the pins expected at that moment, and its children. */
  estimate: number;
  children: Node[];
  /** Children that have not answered, or have but whose subtrees are not yet exact. */
  unresolved: number;
  /** The estimates made when it was split, to be judged once its count is exact. */
  guesses?: Guesses;
}

interface Guesses {
  readonly fromAnswer: number;
  readonly fromMemory: number | undefined;
}

/**
 * How far off one kind of estimate has been lately (squared log2 error), over tiles whose counts
 * became exact. Recent tiles weigh most: a run's estimates change character once its scale is
 * known, and the answers of one server keep theirs.
 */
class TrackRecord {
  private meanSquared = PRIOR_SQUARED_ERROR;
  judged = 0;

  add(estimate: number, truth: number): void {
    if (!(estimate > 0) || !(truth > 0)) return;
    const e = Math.min(MAX_ERROR, Math.abs(Math.log2(truth / estimate)));
    this.meanSquared += RECENCY * (e * e - this.meanSquared);
    this.judged += 1;
  }

  get spread(): number {
    return Math.max(this.meanSquared, MIN_SPREAD);
  }
}

/** Squared log2 error assumed before any tile has been judged: off by a factor of 2. */
const PRIOR_SQUARED_ERROR = 1;
/** Weight of the newest judged tile in a track record. */
const RECENCY = 0.2;
/** One wild miss (a factor of 64) must not decide alone. */
const MAX_ERROR = 6;
const MIN_SPREAD = 0.01;

/** A run-wide memory; create one per run and hand it to every `splitTile` of that run. */
export function createSplitMemory(): SplitMemory {
  const nodes = new Map<string, Node>();
  const answerRecord = new TrackRecord();
  const memoryRecord = new TrackRecord();

  const nodeOf = (tile: Tile): Node => {
    let node = nodes.get(tile.id);
    if (node === undefined) {
      // A tile nobody split (a covering or plan tile, or one planned before a resume).
      node = { parent: undefined, share: 1, state: 'pending', count: 0, estimate: 0, children: [], unresolved: 0 };
      nodes.set(tile.id, node);
    }
    return node;
  };

  const answered = (n: Node): boolean => n.state !== 'pending';

  /** A subtree that has answered uncapped to the bottom is known exactly, and so is its parent when all its children are. */
  const resolve = (n: Node): void => {
    for (let p = n.parent; p !== undefined; p = p.parent) {
      p.unresolved -= 1;
      if (p.unresolved > 0) return;
      p.state = 'exact';
      p.count = p.children.reduce((s, c) => s + c.count, 0);
      if (p.guesses !== undefined) {
        const g = p.guesses;
        answerRecord.add(g.fromAnswer, p.count);
        if (g.fromMemory !== undefined) memoryRecord.add(g.fromMemory, p.count);
      }
    }
  };

  /**
   * Pins in a tile that has answered, from the bottom up: exact counts where known; for a split tile,
   * its answered children and, for the rest of its share, their pins per share; for a capped tile
   * not (yet) split, the cap, which is all it is known to hold.
   */
  const totalFromBelow = (n: Node): number => {
    if (n.state === 'exact') return n.count;
    if (n.children.length === 0) return n.count;
    let seen = 0;
    let seenShare = 0;
    let restShare = 0;
    for (const c of n.children) {
      if (answered(c)) {
        seen += totalFromBelow(c);
        seenShare += c.share;
      } else restShare += c.share;
    }
    const perShare = seenShare > 0 ? seen / seenShare : n.estimate;
    return Math.max(n.count, seen + restShare * perShare);
  };

  /**
   * Pins per unit of `n`'s share, judged from its children other than `except`; with none of them
   * answered, from `n`'s own expected total, asked of its parent the same way.
   */
  const perShareOf = (n: Node, except: Node): number | undefined => {
    let seen = 0;
    let seenShare = 0;
    for (const c of n.children) {
      if (c === except || !answered(c)) continue;
      seen += totalFromBelow(c);
      seenShare += c.share;
    }
    if (seenShare > 0) return seen / seenShare;
    if (n.parent === undefined) return n.estimate > 0 ? n.estimate : undefined;
    const above = perShareOf(n.parent, n);
    return above === undefined ? undefined : Math.max(above * n.share, n.state === 'capped' ? n.count : 0);
  };

  const expectedTotal = (tile: Tile): number | undefined => {
    const node = nodes.get(tile.id);
    if (node?.parent === undefined) return undefined;
    const perShare = perShareOf(node.parent, node);
    return perShare === undefined ? undefined : perShare * node.share;
  };

  return {
    observe(tile, received, capped) {
      if (!Number.isInteger(received) || received < 0) return;
      const node = nodeOf(tile);
      if (node.state !== 'pending') return; // a retried or resumed tile: the first answer stands
      node.count = received;
      node.state = capped ? 'capped' : 'exact';
      if (!capped) resolve(node);
    },
    expectedTotal,
    estimateTotal(tile, fromAnswer, atLeast) {
      const answer = Math.max(fromAnswer, atLeast);
      const remembered = expectedTotal(tile);
      const fromMemory = remembered === undefined ? undefined : Math.max(remembered, atLeast);
      nodeOf(tile).guesses = { fromAnswer: answer, fromMemory };
      // Until some tile has shown which kind is right, the tile's own answer is the nearer evidence.
      if (fromMemory === undefined || memoryRecord.judged === 0) return answer;
      return memoryRecord.spread < answerRecord.spread ? fromMemory : answer;
    },
    recordSplit(parent, estimate, children) {
      const p = nodeOf(parent);
      if (p.children.length > 0) return; // split twice (a retried answer): keep the first children
      p.estimate = estimate;
      for (const { tile, share } of children) {
        const child: Node = { parent: p, share, state: 'pending', count: 0, estimate: 0, children: [], unresolved: 0 };
        nodes.set(tile.id, child);
        p.children.push(child);
      }
      p.unresolved = p.children.length;
      if (p.unresolved === 0) {
        p.state = 'exact';
        p.count = 0;
        resolve(p);
      }
    },
  };
}
