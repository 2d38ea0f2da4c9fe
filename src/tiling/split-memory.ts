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
   * How a capped `tile` is to be split: the pins it is taken to hold, and which reading of its answer
   * says best where they lie. Candidates are the readings of its own answer (`fromAnswer`, at least
   * `atLeast` each) and the estimate from its siblings and ancestors; the one whose kind has matched
   * the tiles whose counts became exact lately wins. All are remembered, to be judged in turn.
   */
  sizeCappedTile(tile: Tile, fromAnswer: Readonly<Record<AnswerReadingKind, number>>, atLeast: number, recaptured?: Recapture): SplitSizing;
  /**
   * How many times what `readPatches` guessed for the cells without hits those cells really held,
   * lately: learnt from tiles whose counts became exact (1 before any has).
   */
  readonly unseenDensityRatio: number;
  /** Uncapped answers observed so far: until the first, every count the run knows is a lower bound. */
  readonly exactAnswers?: number;
  /**
   * Records a split: `estimate` pins expected in the parent, `shares` of that estimate per child
   * (summing to at most 1; children dropped outside a polygon region are simply left out), and how
   * the answer's hits covered the parent (`patches`), to learn `unseenDensityRatio` once its count is exact.
   */
  recordSplit(parent: Tile, estimate: number, children: readonly SplitChild[], patches?: PatchCover): void;
}

export interface SplitChild {
  readonly tile: Tile;
  /** Share of the parent's estimated pins this child was cut to hold. */
  readonly share: number;
  /** The share each reading of the parent's answer gives it, to judge which reading places pins best. */
  readonly readingShares: Readonly<Record<AnswerReadingKind, number>>;
}

/** Two readings of a capped answer: a disc of all pins around the centre, or whole patches where its hits lie. */
export type AnswerReadingKind = 'disc' | 'patches';

export interface SplitSizing {
  readonly total: number;
  /** The reading whose mass the cuts follow. */
  readonly shape: AnswerReadingKind;
}

/**
 * A count estimated by recapture (the parent's hits in the tile marked, the tile's answer drawing some
 * of them again): the estimate and its expected squared log2 error, which grows as fewer are recaptured.
 */
export interface Recapture {
  readonly total: number;
  readonly squaredLog2Error: number;
}

export interface PatchCover {
  readonly hits: number;
  /** What `readPatches` guessed for the cells without hits. */
  readonly unseenExpected: number;
}

interface Node {
  readonly parent: Node | undefined;
  /** Share of the parent's estimated pins this tile was cut to hold. */
  readonly share: number;
  readonly readingShares: Readonly<Record<AnswerReadingKind, number>>;
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
  patches?: PatchCover;
}

interface Guesses {
  /** The memory's split counter when they were made. */
  readonly at: number;
  readonly disc: number;
  readonly patches: number;
  readonly memory: number | undefined;
}

/**
 * How far off one kind of estimate has been lately (squared log2 error), over tiles whose counts
 * became exact. Recent tiles weigh most: a run's estimates change character once its scale is
 * known, and the answers of one server keep theirs.
 */
class TrackRecord {
  private meanSquared = PRIOR_SQUARED_ERROR;
  judged = 0;

  /** `age`: how many splits ago the estimate was made; an old estimate says little about the estimator now. */
  add(estimate: number, truth: number, age: number): void {
    if (!(estimate > 0) || !(truth > 0)) return;
    const e = Math.min(MAX_ERROR, Math.abs(Math.log2(truth / estimate)));
    const weight = RECENCY * 2 ** (-age / AGE_HALF_LIFE);
    this.meanSquared += weight * (e * e - this.meanSquared);
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
/** Splits after which an estimate, judged only now, counts half. */
const AGE_HALF_LIFE = 4;
/** One wild miss (a factor of 64) must not decide alone. */
const MAX_ERROR = 6;
const MIN_SPREAD = 0.01;
/** Total variation assumed for a reading's shares before any split has been judged. */
const PRIOR_SHAPE_ERROR = 0.2;

/** A run-wide memory; create one per run and hand it to every `splitTile` of that run. */
export function createSplitMemory(): SplitMemory {
  const nodes = new Map<string, Node>();
  /** Capped tiles sized so far: the clock estimates are aged by. */
  let splits = 0;
  const records = { disc: new TrackRecord(), patches: new TrackRecord(), memory: new TrackRecord() };
  /** Lately, how far (total variation) children's real shares of their parent were from each reading's. */
  const shapeError: Record<AnswerReadingKind, number> = { disc: PRIOR_SHAPE_ERROR, patches: PRIOR_SHAPE_ERROR };
  const judgeShapes = (p: Node): void => {
    if (p.count <= 0 || p.children.length < 2) return;
    for (const kind of ['disc', 'patches'] as const) {
      let sum = 0;
      for (const c of p.children) sum += c.readingShares[kind];
      if (!(sum > 0)) continue;
      let tv = 0;
      for (const c of p.children) tv += Math.abs(c.count / p.count - c.readingShares[kind] / sum);
      shapeError[kind] += RECENCY * (tv / 2 - shapeError[kind]);
    }
  };
  /** log2 of the unseen density ratio, learnt lately. */
  let unseenRatioLog2 = 0;
  const learnUnseenRatio = (cover: PatchCover, truth: number): void => {
    if (!(cover.unseenExpected > 0)) return;
    const ratio = (truth - cover.hits) / cover.unseenExpected;
    const clamped = Math.max(-MAX_ERROR, Math.min(MAX_ERROR, Math.log2(Math.max(ratio, 2 ** -MAX_ERROR))));
    unseenRatioLog2 += RECENCY * (clamped - unseenRatioLog2);
  };

  let exactAnswers = 0;
  const nodeOf = (tile: Tile): Node => {
    let node = nodes.get(tile.id);
    if (node === undefined) {
      // A tile nobody split (a covering or plan tile, or one planned before a resume).
      node = { parent: undefined, share: 1, readingShares: { disc: 1, patches: 1 }, state: 'pending', count: 0, estimate: 0, children: [], unresolved: 0 };
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
      const g = p.guesses;
      if (g !== undefined) {
        const age = splits - g.at;
        records.disc.add(g.disc, p.count, age);
        records.patches.add(g.patches, p.count, age);
        if (g.memory !== undefined) records.memory.add(g.memory, p.count, age);
      }
      if (p.patches !== undefined) learnUnseenRatio(p.patches, p.count);
      judgeShapes(p);
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
      if (!capped) {
        exactAnswers += 1;
        resolve(node);
      }
    },
    expectedTotal,
    sizeCappedTile(tile, fromAnswer, atLeast, recaptured) {
      const disc = Math.max(fromAnswer.disc, atLeast);
      const patches = Math.max(fromAnswer.patches, atLeast);
      const remembered = expectedTotal(tile);
      const memory = remembered === undefined ? undefined : Math.max(remembered, atLeast);
      splits += 1;
      nodeOf(tile).guesses = { at: splits, disc, patches, memory };
      // Ties go to the disc, then to the tile's own answer: the nearer evidence until a kind has been judged.
      const shape: AnswerReadingKind = shapeError.patches < shapeError.disc ? 'patches' : 'disc';
      const candidates: [number, TrackRecord][] = [
        [disc, records.disc],
        [patches, records.patches],
      ];
      if (memory !== undefined) candidates.push([memory, records.memory]);
      let best = candidates[0]!;
      for (const c of candidates) if (c[1].judged > 0 && c[1].spread < best[1].spread) best = c;
      if (recaptured === undefined || !(recaptured.total > 0)) return { total: best[0], shape };
      // Two independent estimates, weighed by how far each is expected to be off (in log2): a record
      // that has not been judged yet is a lower bound more than an estimate, and counts as the prior.
      const spread = best[1].judged > 0 ? best[1].spread : PRIOR_SQUARED_ERROR;
      const wr = 1 / Math.max(recaptured.squaredLog2Error, MIN_SPREAD);
      const wb = 1 / spread;
      const log2 = (wb * Math.log2(best[0]) + wr * Math.log2(Math.max(recaptured.total, atLeast))) / (wb + wr);
      return { total: Math.max(2 ** log2, atLeast), shape };
    },
    get unseenDensityRatio() {
      return 2 ** unseenRatioLog2;
    },
    get exactAnswers() {
      return exactAnswers;
    },
    recordSplit(parent, estimate, children, patches) {
      const p = nodeOf(parent);
      if (p.children.length > 0) return; // split twice (a retried answer): keep the first children
      p.estimate = estimate;
      if (patches !== undefined) p.patches = patches;
      for (const { tile, share, readingShares } of children) {
        const child: Node = { parent: p, share, readingShares, state: 'pending', count: 0, estimate: 0, children: [], unresolved: 0 };
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
