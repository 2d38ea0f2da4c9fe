import { METRES_PER_DEG_LAT, bboxCentre, containsClosed, metresPerDegLon } from './geo.js';
import { checkFill, checkPositive, checkPositiveInt } from './options.js';
import type { BBox, Point } from './types.js';

/** A part of a capped tile the answer says nothing about, with the pins we guess it holds. */
export interface UnseenCell {
  readonly lon: number;
  readonly lat: number;
  readonly expected: number;
}

export interface CappedAnswerReading {
  /** Hits inside the tile (the server may round edges; strays are ignored). */
  readonly hits: readonly Point[];
  /** Radius of the disc around the tile centre the hits span, in metres. */
  readonly radiusM: number;
  /** Area of that disc within the tile, m². */
  readonly seenAreaM2: number;
  /** Pins per m² in the outer ring of the seen disc, where the guess for the unseen rest starts. */
  readonly unseenDensity: number;
  readonly unseen: readonly UnseenCell[];
  /** Hits plus the guess for the unseen part. */
  readonly estimatedTotal: number;
}

const GRID = 32;
const SUB = 4;
/**
 * Extrapolated decay never guesses below this share of the ring density: backgrounds are rarely empty.
 * 0.1 measured best on the clustered harness world (0.02 to 1 all stay within 2.5x of the floor).
 */
const MIN_DECAY = 0.1;

/**
 * What a capped CoordInfo answer tells about its tile.
 *
 * EFA returns box hits nearest to the box centre first, so a capped answer is not a uniform sample: it
 * is (nearly) every pin within some radius r of the centre and nothing beyond. Inside that disc we
 * know the pins exactly; outside we only know there is at least one more. The outer half of the disc
 * (by area) is the nearest evidence about what lies beyond, so the guess for the unseen rest starts
 * at its density and, where density already falls from the inner disc to that ring, keeps falling
 * (down to a floor). Extrapolating the disc mean instead would over-split the sparse outskirts of
 * every tile centred on a city core, and each needless child costs a request; an underestimate
 * costs one re-split, whose own answer then shows the density there.
 *
 * If a server returned an arbitrary subset instead, the hits would span the whole tile, nothing would
 * look unseen, and splitting falls back to a k-d cut at the hit median: still correct, just slower.
 */
export function readCappedAnswer(bbox: BBox, hits: readonly Point[]): CappedAnswerReading {
  const inside = hits.filter((h) => containsClosed(bbox, h.lon, h.lat));
  const c = bboxCentre(bbox);
  const kx = metresPerDegLon(c.lat);
  const ky = METRES_PER_DEG_LAT;
  const dist = (lon: number, lat: number): number => Math.hypot((lon - c.lon) * kx, (lat - c.lat) * ky);
  let r = 0;
  for (const h of inside) r = Math.max(r, dist(h.lon, h.lat));
  const inner = r / Math.SQRT2;
  let ringHits = 0;
  for (const h of inside) if (dist(h.lon, h.lat) > inner) ringHits++;

  const cw = (bbox[2] - bbox[0]) / GRID;
  const ch = (bbox[3] - bbox[1]) / GRID;
  const cellArea = cw * kx * ch * ky;
  const subArea = cellArea / (SUB * SUB);
  // First pass: areas of the seen disc, of its inner part and of its outer ring. Areas are summed from
  // sub-samples so that a disc smaller than a cell is still measured.
  let seenArea = 0;
  let ringArea = 0;
  const sampleAt = (gx: number, gy: number, sx: number, sy: number): number =>
    dist(bbox[0] + (gx + (sx + 0.5) / SUB) * cw, bbox[1] + (gy + (sy + 0.5) / SUB) * ch);
  for (let gy = 0; gy < GRID; gy++) {
    for (let gx = 0; gx < GRID; gx++) {
      for (let sy = 0; sy < SUB; sy++) {
        for (let sx = 0; sx < SUB; sx++) {
          const d = sampleAt(gx, gy, sx, sy);
          if (d <= r) {
            seenArea += subArea;
            if (d > inner) ringArea += subArea;
          }
        }
      }
    }
  }
  // A disc too small for the sub-sample grid (all hits at one spot) still covers some area.
  const seen = Math.max(seenArea, Math.PI * r * r, subArea / 4);
  const innerArea = seen - ringArea;
  const ringUsable = ringArea >= 0.1 * seen && ringHits > 0 && innerArea > 0;
  const ringDensity = ringUsable ? ringHits / ringArea : inside.length / seen;
  // Where density falls from the inner disc to the ring (the tile is centred on a cluster), it keeps
  // falling beyond at the same log-rate per metre; where it rises, it is held flat, because a guess
  // that grows with distance has no bound and every overestimate buys a needless child.
  const innerDensity = ringUsable ? (inside.length - ringHits) / innerArea : ringDensity;
  const ratio = innerDensity > 0 ? Math.min(1, ringDensity / innerDensity) : 1;
  // Mean distance from the centre of a uniform disc of radius R is 2R/3; of the ring, about 0.86 r.
  const span = 0.86 * r - (2 / 3) * inner;
  const slope = ratio > 0 && span > 0 ? Math.log(ratio) / span : ratio === 0 ? -Infinity : 0;
  const densityAt = (d: number): number => ringDensity * Math.max(Math.exp(slope * (d - 0.86 * r)), MIN_DECAY);

  const unseen: UnseenCell[] = [];
  let unseenTotal = 0;
  for (let gy = 0; gy < GRID; gy++) {
    for (let gx = 0; gx < GRID; gx++) {
      let expected = 0;
      for (let sy = 0; sy < SUB; sy++) {
        for (let sx = 0; sx < SUB; sx++) {
          const d = sampleAt(gx, gy, sx, sy);
          if (d > r) expected += subArea * densityAt(d);
        }
      }
      if (expected === 0) continue;
      unseenTotal += expected;
      unseen.push({ lon: bbox[0] + (gx + 0.5) * cw, lat: bbox[1] + (gy + 0.5) * ch, expected });
    }
  }
  return {
    hits: inside,
    radiusM: r,
    seenAreaM2: seen,
    unseenDensity: ringDensity,
    unseen,
    estimatedTotal: inside.length + unseenTotal,
  };
}

/**
 * How many tiles of `fill × maxPerRequest` pins a region needs, from a probe that saw `probeHits`
 * pins on `probeAreaM2` (for a capped probe, pass the seen area of `readCappedAnswer`, not the tile).
 * A probe centred on a city core overestimates; the sweep splits what the estimate gets wrong.
 */
export function estimateTileCount(
  probeHits: number,
  probeAreaM2: number,
  regionAreaM2: number,
  maxPerRequest: number,
  fill = 0.8,
): number {
  checkPositiveInt('maxPerRequest', maxPerRequest);
  checkFill('fill', fill);
  checkPositive('probeAreaM2', probeAreaM2);
  checkPositive('regionAreaM2', regionAreaM2);
  const expected = (Math.max(0, probeHits) / probeAreaM2) * regionAreaM2;
  return Math.max(1, Math.ceil(expected / (fill * maxPerRequest)));
}

/**
 * A capped answer read as "complete where it has hits, unknown elsewhere": the tile on a 16 x 16 grid,
 * each cell with hits holding exactly those, each cell without holding what the density of the cells
 * with hits around it suggests (inverse squared distance). Where the server returns whole areas (by
 * id, municipality by municipality) this guesses the rest; where it returns a thinned sample, the
 * empty cells are truly sparse and the run's memory learns to trust this reading less.
 * (Interpolating from neighbouring boxes with exact counts as well was measured: it guessed worse.)
 */
export interface PatchReading {
  readonly hits: readonly Point[];
  /** Cells without hits: their centres and the pins interpolated for them. */
  readonly unseen: readonly UnseenCell[];
  /** Sum of `unseen`. */
  readonly unseenExpected: number;
}

const PATCH_GRID = 16;

export function readPatches(bbox: BBox, hits: readonly Point[]): PatchReading {
  const inside = hits.filter((h) => containsClosed(bbox, h.lon, h.lat));
  const c = bboxCentre(bbox);
  const kx = metresPerDegLon(c.lat);
  const ky = METRES_PER_DEG_LAT;
  const cw = (bbox[2] - bbox[0]) / PATCH_GRID;
  const ch = (bbox[3] - bbox[1]) / PATCH_GRID;
  const counts = new Uint32Array(PATCH_GRID * PATCH_GRID);
  for (const h of inside) {
    const gx = Math.min(PATCH_GRID - 1, Math.floor((h.lon - bbox[0]) / cw));
    const gy = Math.min(PATCH_GRID - 1, Math.floor((h.lat - bbox[1]) / ch));
    counts[gy * PATCH_GRID + gx]! += 1;
  }
  // The cells with hits, in metres from the tile's south-west corner, with their counts.
  const seenX: number[] = [];
  const seenY: number[] = [];
  const seenCount: number[] = [];
  for (let gy = 0; gy < PATCH_GRID; gy++) {
    for (let gx = 0; gx < PATCH_GRID; gx++) {
      const n = counts[gy * PATCH_GRID + gx]!;
      if (n === 0) continue;
      seenX.push((gx + 0.5) * cw * kx);
      seenY.push((gy + 0.5) * ch * ky);
      seenCount.push(n);
    }
  }
  // A cell's own extent, so that a neighbour does not weigh infinitely more than the next one.
  const cellRadius2 = ((cw * kx) ** 2 + (ch * ky) ** 2) / 4;
  const unseen: UnseenCell[] = [];
  let unseenExpected = 0;
  for (let gy = 0; gy < PATCH_GRID; gy++) {
    for (let gx = 0; gx < PATCH_GRID; gx++) {
      if (counts[gy * PATCH_GRID + gx] !== 0) continue;
      const x = (gx + 0.5) * cw * kx;
      const y = (gy + 0.5) * ch * ky;
      let weights = 0;
      let weighted = 0;
      for (let i = 0; i < seenX.length; i++) {
        const weight = 1 / ((x - seenX[i]!) ** 2 + (y - seenY[i]!) ** 2 + cellRadius2);
        weights += weight;
        weighted += weight * seenCount[i]!;
      }
      const expected = weights > 0 ? weighted / weights : 0;
      unseenExpected += expected;
      unseen.push({ lon: bbox[0] + (gx + 0.5) * cw, lat: bbox[1] + (gy + 0.5) * ch, expected });
    }
  }
  return { hits: inside, unseen, unseenExpected };
}
