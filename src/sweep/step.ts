import type { EfaResult, Pin } from '../efa/index.js';
import {
  createCapDetector,
  createSpatialCheck,
  createSplitMemory,
  inStratum,
  regionBBox,
  splitTile,
  type AskBox,
  type BBox,
  type CapDetector,
  type Point,
  type Region,
  type SpatialCheck,
  type SplitMemory,
  type Tile,
  type TileBudget,
} from '../tiling/index.js';
import { boxAnswer, judgeBoxAnswer } from './judge.js';
import { failure, settle, type FailedOutcome, type Placement, type TileOutcome } from './outcome.js';

/** Splits one capped tile; `memory` is the sweep's own, already fed this tile's answer; `max` the cap it reached. */
export type Splitter = (tile: Tile, hits: Point[], memory: SplitMemory, max: number) => readonly Tile[] | 'too-small';

export interface BoxStepOptions {
  /** Names the sweep in what it reports (`coordInfo`, `vehicles`, `parking`). */
  readonly label: string;
  /** The sweep's one tile budget (tileBudgetOf): its cap per request and its smallest tile. */
  readonly budget: TileBudget;
  readonly region: Region;
  readonly regionBBox?: BBox;
  /** Every credential of the configuration: redacted from every error an outcome carries. */
  readonly secrets?: readonly string[];
  /** The objects one answered object stands for (a sharing station: the vehicles it lists); default itself. */
  readonly expand?: (pin: Pin) => Pin[];
  /** How a capped tile is cut; default `splitTile` with the sweep's memory (the tiling bench compares others). */
  readonly split?: Splitter;
  /** A run's own, when something outside the sweep reads them (the nightly run's finalise reads the cap). */
  readonly capDetector?: CapDetector;
  readonly splitMemory?: SplitMemory;
  readonly spatialCheck?: SpatialCheck;
}

/**
 * One sweep's judge of box answers. It owns the order the trust checks are fed in, so no caller
 * repeats it: the cap detector sees every answer first (a suspected silent cap is confirmed or
 * cleared before this answer is judged by it), the answer is judged by the cap it proved, the split
 * memory learns from every answer that is not untrusted before a capped one is split, and a capped
 * answer is put to the spatial check before it is split.
 */
export interface BoxStep {
  readonly label: string;
  readonly budget: TileBudget;
  /** One answer's outcome, and the tiles judged complete before a silent cap was proved that must be asked again. */
  answer(tile: Tile, result: EfaResult<Pin>, ask: AskBox): Promise<{ outcome: TileOutcome; redo: readonly Tile[] }>;
  /** A request that failed (not fatally). */
  failure(tile: Tile, error: unknown): FailedOutcome;
  /** The count the server silently stops at, once a confirming request proved it (the post-pass re-marks by it). */
  readonly silentCap: number | undefined;
  /** What the sweep tells once it is over, when the spatial check stopped branches: one line, not one per tile. */
  notSpatialNote(consequence?: string): string | undefined;
  readonly memory: SplitMemory;
}

/** Today's splitter (`splitTile` with the sweep's memory): the default of a step, for a sweep that cuts some tiles its own way. */
export function todaySplitter(o: Pick<BoxStepOptions, 'budget' | 'region'>): Splitter {
  const { minTileSizeDeg, followDensity } = o.budget;
  // `max` is the cap this tile reached (a silent cap may be below the budget's maxPerRequest).
  return (tile, hits, mem, max) => splitTile(tile, hits, { maxPerRequest: max, minTileSizeDeg, followDensity, region: o.region, memory: mem });
}

/** The one summary of the branches a spatial check stopped (undefined: none), for the run's warning and note. */
export function notSpatialNote(label: string, spatial: SpatialCheck, consequence?: string): string | undefined {
  if (spatial.stopped === 0) return undefined;
  return (
    `${label} answers are not spatial: ${spatial.evidence ?? 'boxes of every size answered full'}; ${spatial.stopped} branch(es) that answered full ` +
    `for several generations in a row were stopped as untrusted (recorded capped; their answers were not stored${consequence ? `, ${consequence}` : ''})`
  );
}

export function createBoxStep(o: BoxStepOptions): BoxStep {
  const capDetector = o.capDetector ?? createCapDetector();
  const memory = o.splitMemory ?? createSplitMemory();
  const spatial = o.spatialCheck ?? createSpatialCheck();
  const place: Placement = { region: o.region, regionBBox: o.regionBBox ?? regionBBox(o.region), expand: o.expand, secrets: o.secrets ?? [] };
  const split: Splitter = o.split ?? todaySplitter(o);
  return {
    label: o.label,
    budget: o.budget,
    memory,
    async answer(tile, result, askAny) {
      // A stratum's tile (a pilot sweep's) is confirmed by requests for its own types, and its children are of its stratum.
      const ask: AskBox = tile.types === undefined ? askAny : (probe) => askAny(inStratum(probe, tile.types));
      const seen = boxAnswer(result);
      const { max, redo } = await capDetector.observe(tile, seen, o.budget.maxPerRequest, ask);
      const verdict = judgeBoxAnswer(tile.bbox, result, max, `${o.label} tile ${tile.id}`);
      if (verdict.kind === 'untrusted') return { outcome: settle(tile, result, verdict, undefined, place), redo };
      memory.observe(tile, verdict.received, verdict.kind === 'capped');
      if (verdict.kind !== 'capped') return { outcome: settle(tile, result, verdict, undefined, place), redo };
      let children: readonly Tile[] | 'too-small' | 'not-spatial' =
        (await spatial.judgeFull(tile, seen, max, ask)) === 'untrusted'
          ? 'not-spatial'
          : split(tile, result.records.map((h) => h.coord), memory, max);
      if (typeof children === 'object' && tile.types !== undefined) children = children.map((c) => inStratum(c, tile.types));
      return { outcome: settle(tile, result, verdict, children, place), redo };
    },
    failure: (_tile, error) => failure(error, place.secrets),
    get silentCap() {
      return capDetector.effectiveCap;
    },
    notSpatialNote: (consequence) => notSpatialNote(o.label, spatial, consequence),
  };
}
