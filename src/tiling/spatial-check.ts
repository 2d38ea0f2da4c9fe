import type { AskBox, BoxAnswer } from './cap-detector.js';
import { METRES_PER_DEG_LAT, makeTile, metresPerDegLon } from './geo.js';
import { checkPositiveInt } from './options.js';
import type { BBox, Point, Tile } from './types.js';

export interface SpatialCheckOptions {
  /** Full answers in a row down one branch (a tile, its parent, its grandparent …) before the server is put to the test. */
  readonly levels?: number;
  /** Below this `max`, a handful of objects at one spot can fill an answer: no probe is sent. */
  readonly minFull?: number;
}

export interface SpatialCheck {
  /**
   * For an answer judged full (`full`: the threshold it reached): `'split'` to go on splitting, or
   * `'untrusted'` to stop this branch. Sends at most one probe request (through `ask`).
   */
  judgeFull(tile: Tile, answer: BoxAnswer, full: number, ask: AskBox): Promise<'split' | 'untrusted'>;
  /** Branches stopped as untrusted. */
  readonly stopped: number;
  /** Probe requests sent. */
  readonly probes: number;
  /** What proved the answers are not spatial, once something did. */
  readonly evidence: string | undefined;
}

/** Side of a probe box: 1e-5° (about a metre), the precision of the coordinates a request carries. */
const PROBE_DEG = 0.00001;

/**
 * The point of `b` farthest from every answered object (a 6 × 6 grid of candidates): where an honest
 * server has the least reason to hold anything.
 */
function emptiestSpot(b: BBox, points: readonly Point[]): Point {
  const kx = metresPerDegLon((b[1] + b[3]) / 2);
  let best: Point = { lon: (b[0] + b[2]) / 2, lat: (b[1] + b[3]) / 2 };
  let bestDistance = -1;
  const n = 6;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const lon = b[0] + ((i + 0.5) / n) * (b[2] - b[0]);
      const lat = b[1] + ((j + 0.5) / n) * (b[3] - b[1]);
      let nearest = Infinity;
      for (const p of points) nearest = Math.min(nearest, Math.hypot((p.lon - lon) * kx, (p.lat - lat) * METRES_PER_DEG_LAT));
      if (nearest > bestDistance) {
        bestDistance = nearest;
        best = { lon, lat };
      }
    }
  }
  return best;
}

/** A box of about a metre around `p`, on the 6-decimal grid a request carries. */
function probeBox(p: Point): BBox {
  const lon = Math.round(p.lon * 1e6) / 1e6;
  const lat = Math.round(p.lat * 1e6) / 1e6;
  const h = PROBE_DEG / 2;
  return [lon - h, lat - h, lon + h, lat + h];
}

/**
 * Notices a server whose answers are not spatial: one that answers every box full, however small.
 *
 * A real region splits into children that hold their parent's objects between them, so going down a
 * branch the answers stop being full; a dense spot keeps one child per level full, but its siblings
 * answer below max and no box of a metre holds `max` objects. When a branch has answered full for
 * `levels` generations in a row (density growing with every cut), one probe asks a box of about a
 * metre at the spot of the tile farthest from anything its answer showed. An honest server answers
 * nothing or next to nothing there; if the probe comes back full too, the answers do not depend on the
 * box: the branch is stopped as untrusted, and so is every branch that reaches the same depth later
 * (the server has shown what it does). A probe that clears lets the run go on, and the next one waits
 * for a branch two generations deeper, so an honest, very dense region costs a few probes in all.
 */
export function createSpatialCheck(opts: SpatialCheckOptions = {}): SpatialCheck {
  const levels = checkPositiveInt('levels', opts.levels ?? 4);
  const minFull = checkPositiveInt('minFull', opts.minFull ?? 10);
  /** Full answers in a row ending at this tile, counted since the last probe that cleared its branch. */
  const chain = new Map<string, number>();
  let threshold = levels;
  let proven: string | undefined;
  let stopped = 0;
  let probes = 0;
  return {
    async judgeFull(tile, answer, full, ask) {
      const run = (tile.parentId !== undefined ? (chain.get(tile.parentId) ?? 0) : 0) + 1;
      chain.set(tile.id, run);
      if (full < minFull || run < threshold) return 'split';
      if (proven !== undefined) {
        stopped += 1;
        return 'untrusted';
      }
      const box = probeBox(emptiestSpot(tile.bbox, answer.points));
      probes += 1;
      const probe = await ask(makeTile(box, tile.depth + 1, tile.id));
      if (probe !== undefined && probe.received >= full) {
        const spot = `${((box[0] + box[2]) / 2).toFixed(6)},${((box[1] + box[3]) / 2).toFixed(6)}`;
        proven = `a box of about 1 m at ${spot} (lon,lat) answered ${probe.received} objects, as full as the ${full} of its ${run} enclosing tiles`;
        stopped += 1;
        return 'untrusted';
      }
      if (probe !== undefined) {
        // Cleared: this branch starts counting again, and the next probe anywhere needs a longer run.
        chain.set(tile.id, 0);
        threshold += 2;
      }
      return 'split';
    },
    get stopped() {
      return stopped;
    },
    get probes() {
      return probes;
    },
    get evidence() {
      return proven;
    },
  };
}
