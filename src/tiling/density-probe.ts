import { coverRegion } from './cover.js';
import { readCappedAnswer } from './estimate.js';
import { bboxAreaM2, bboxCentre } from './geo.js';
import { inRegion } from './region.js';
import type { BBox, Point, Region } from './types.js';

/** One probe box's answer: the pins inside the region (and how many of them are stops), and whether `max` capped it. */
export interface ProbeAnswer {
  readonly hits: readonly Point[];
  readonly stops: number;
  readonly capped: boolean;
  readonly durationMs: number;
}

/** Sends one CoordInfo box request of the job (its types, its `max`) and reads the answer. */
export type AskBox = (bbox: BBox) => Promise<ProbeAnswer | undefined>;

/** A count with the range it is known within. */
export interface Range {
  readonly low: number;
  readonly estimate: number;
  readonly high: number;
}

/** What the probes found, extrapolated over the region. */
export interface DensityEstimate {
  readonly pins: Range;
  readonly stops: Range;
  readonly probes: {
    readonly sent: number;
    readonly answered: number;
    readonly capped: number;
    /** Strata whose every box came back capped: only a lower bound of their density is known. */
    readonly strataCappedOnly: number;
    readonly strata: number;
    /** Median and 90th percentile of the answers' durations, in ms (the night's latency). */
    readonly latencyMs: { readonly min: number; readonly median: number; readonly p90: number };
  };
}

/**
 * Relative error of a stratum's count where its samples cannot say how far they spread: one sample
 * box (no spread to measure), or an answer capped even at the finest box (the tiling's guess beyond
 * a lower bound). Errors of different strata are independent; the range is the estimate times and
 * over 1 + 2 standard errors.
 */
const ONE_SAMPLE_ERROR = 1;
const CAPPED_ERROR = 1;

/** A sample cell is sized to hold about this share of `max`, so that it comes back below the cap. */
const SAMPLE_FILL = 0.5;

interface Sample {
  /** The region's area of the sample's cell, m². */
  readonly cellM2: number;
  /** The boxes that cover the cell: the cell itself, or its quarters once it came back capped. */
  parts: { readonly box: BBox; answer?: ProbeAnswer }[];
}

interface Stratum {
  readonly bbox: BBox;
  readonly areaM2: number;
  answer?: ProbeAnswer;
  /** The cells a capped stratum was cut into, of which `samples` were asked. */
  cells: number;
  samples: Sample[];
}

/**
 * Samples a region's pin density with at most `budget` CoordInfo requests, in two phases. First a
 * coarse grid of strata (a quarter of the budget; cells outside a polygon dropped), each asked as a
 * whole: a stratum that answers below `max` is counted exactly. A capped one only says "at least
 * `max`", so the rest of the budget samples the capped strata, more samples where the capped answer
 * suggests more pins: each gets a grid of cells, and in each cell a centred box sized to hold about
 * half of `max` at that guess. The samples' densities, scaled to their cells, give the stratum's
 * count, and their spread its standard error (stratified sampling).
 */
export async function probeDensity(region: Region, budget: number, ask: AskBox): Promise<DensityEstimate> {
  const coarse = Math.max(1, Math.floor(budget / 4));
  const strata: Stratum[] = coverRegion(region, { targetTiles: coarse })
    .slice(0, budget)
    .map((t) => ({ bbox: t.bbox, areaM2: areaInRegion(region, t.bbox), cells: 0, samples: [] }));
  const durations: number[] = [];
  let sent = 0;
  let answered = 0;
  let capped = 0;
  const askAll = async (boxes: readonly BBox[]): Promise<(ProbeAnswer | undefined)[]> => {
    sent += boxes.length;
    const answers = await Promise.all(boxes.map((b) => ask(b)));
    for (const a of answers) {
      if (!a) continue;
      answered++;
      durations.push(a.durationMs);
      if (a.capped) capped++;
    }
    return answers;
  };
  (await askAll(strata.map((s) => s.bbox))).forEach((a, i) => {
    if (a) strata[i]!.answer = a;
  });

  // Most of the rest over the capped strata, evenly (each holds at least `max`; a capped answer's guess
  // of how many more is too weak to weigh by); a quarter kept to split samples that come back capped too.
  const open = strata.filter((s) => s.answer?.capped === true);
  const left = budget - sent;
  const spare = open.length > 0 ? Math.floor(left / 4) : 0;
  open.forEach((s, i) => {
    const m = Math.floor((left - spare) / open.length) + (i < (left - spare) % open.length ? 1 : 0);
    if (m === 0) return;
    // Cells sized to hold about SAMPLE_FILL × max at the capped answer's guess, m of them asked whole,
    // spread evenly over the stratum: no box is scaled up from a part of its cell (a dense core seen
    // through a small box would be extrapolated over the whole cell).
    // Sized from the high end of the guess: a cell too small costs precision, one too large comes back capped.
    const guessed = cappedGuess(s.bbox, s.answer!).high;
    const cells = coverRegion({ bbox: s.bbox }, { targetTiles: Math.max(m, Math.ceil(guessed / (SAMPLE_FILL * s.answer!.hits.length))) });
    s.cells = cells.length;
    const chosen = m >= cells.length ? cells : Array.from({ length: m }, (_, k) => cells[Math.floor(((k + 0.5) * cells.length) / m)]!);
    s.samples = chosen.map((c) => ({ cellM2: areaInRegion(region, c.bbox), parts: [{ box: c.bbox }] }));
  });
  const samples = open.flatMap((s) => s.samples);
  let pending = samples.flatMap((x) => x.parts);
  while (pending.length > 0 && sent + pending.length <= budget) {
    const batch = pending;
    (await askAll(batch.map((x) => x.box))).forEach((a, i) => {
      if (a) batch[i]!.answer = a;
    });
    pending = [];
    // A sample capped too is asked again as its four quarters, while the budget lasts.
    for (const x of samples) {
      const cappedPart = x.parts.find((q) => q.answer?.capped === true);
      if (!cappedPart || sent + pending.length + 4 > budget) continue;
      const quarters = quartersOf(cappedPart.box).map((box) => ({ box }));
      x.parts = [...x.parts.filter((q) => q !== cappedPart), ...quarters];
      pending.push(...quarters);
    }
  }

  const readings = strata.map((s) => readStratum(region, s));
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return {
    pins: combine(readings.map((r) => r.pins)),
    stops: combine(readings.map((r) => r.stops)),
    probes: {
      sent,
      answered,
      capped,
      strataCappedOnly: strata.filter((s) => s.answer?.capped === true && !s.samples.some((x) => x.parts.every((q) => q.answer?.capped === false))).length,
      strata: strata.length,
      latencyMs: { min: sorted[0] ?? 0, median: at(0.5), p90: at(0.9) },
    },
  };
}

interface Part {
  readonly estimate: number;
  /** Standard error, in pins. */
  readonly error: number;
  /** What the answers showed: nothing can hold fewer. */
  readonly lowest: number;
}

/**
 * A stratum's pins and stops: exact when its own box answered below `max`; else from its samples
 * (density of each box times its cell's area, the spread of those as the error); where no sample
 * answered, the tiling's own reading of the capped answer (the pins nearest the centre and a guess
 * for the rest, readCappedAnswer), never below what was seen.
 */
function readStratum(region: Region, s: Stratum): { pins: Part; stops: Part } {
  const a = s.answer;
  const none = { estimate: 0, error: 0, lowest: 0 };
  if (!a || s.areaM2 === 0) return { pins: none, stops: none };
  const seen = a.hits.length;
  if (!a.capped) return { pins: { estimate: seen, error: 0, lowest: seen }, stops: { estimate: a.stops, error: 0, lowest: a.stops } };
  const answeredSamples = s.samples.filter((x) => x.parts.every((q) => q.answer !== undefined));
  if (answeredSamples.length === 0) {
    const g = cappedGuess(s.bbox, a);
    const stopShare = seen > 0 ? a.stops / seen : 0;
    return { pins: { estimate: g.estimate, error: g.error, lowest: seen }, stops: { estimate: g.estimate * stopShare, error: g.error * stopShare, lowest: a.stops } };
  }
  // Each sample cell's pins: counted where its boxes answered below max, guessed where one was capped.
  const cellCounts = answeredSamples.map((x) => {
    let pins = 0;
    let stops = 0;
    let guessVariance = 0;
    for (const q of x.parts) {
      const ans = q.answer!;
      const g = ans.capped ? cappedGuess(q.box, ans) : { estimate: ans.hits.length, error: 0, high: ans.hits.length };
      pins += g.estimate;
      stops += ans.hits.length > 0 ? (g.estimate * ans.stops) / ans.hits.length : 0;
      guessVariance += g.error ** 2;
    }
    return { pins, stops, guessVariance, cellM2: x.cellM2 };
  });
  const sampledM2 = cellCounts.reduce((t, x) => t + x.cellM2, 0);
  // The sampled cells stand for the stratum's others: scaled by area.
  const grow = sampledM2 > 0 ? s.areaM2 / sampledM2 : 0;
  const m = cellCounts.length;
  // Share of the stratum's cells that were not asked: none left, no sampling error (a census).
  const unasked = s.cells > 0 ? Math.max(0, 1 - m / s.cells) : 1;
  const guessError = grow * Math.sqrt(cellCounts.reduce((t, x) => t + x.guessVariance, 0));
  const part = (values: number[], lowest: number, guessed: number): Part => {
    const sum = values.reduce((t, v) => t + v, 0);
    const estimate = Math.max(lowest, sum * grow);
    const mean = sum / m;
    const spread = m >= 2 ? Math.sqrt(values.reduce((t, v) => t + (v - mean) ** 2, 0) / (m - 1)) : ONE_SAMPLE_ERROR * mean;
    // The standard error of a total from m of the stratum's cells, plus that of the guesses behind capped boxes.
    const sampling = grow * Math.sqrt(m) * spread * Math.sqrt(unasked);
    return { estimate, error: Math.hypot(sampling, guessed), lowest };
  };
  const stopShare = sampledStopShare(cellCounts);
  return { pins: part(cellCounts.map((x) => x.pins), seen, guessError), stops: part(cellCounts.map((x) => x.stops), a.stops, guessError * stopShare) };
}

function sampledStopShare(cells: readonly { pins: number; stops: number }[]): number {
  const pins = cells.reduce((t, x) => t + x.pins, 0);
  return pins > 0 ? cells.reduce((t, x) => t + x.stops, 0) / pins : 0;
}

/**
 * What a capped answer says its box holds. Answers list the hits nearest the box centre first, so
 * they cover a disc: the tiling's reading (readCappedAnswer) lets the density fall off beyond it as
 * it falls within, which undercounts a box around a dense core; the disc's mean density over the
 * whole box overcounts it. The two are the range, their geometric mean the estimate. An answer of
 * hits spread over the whole box (another order) gives both as its hits: a lower bound only.
 */
function cappedGuess(box: BBox, answer: ProbeAnswer): { estimate: number; error: number; high: number } {
  const reading = readCappedAnswer(box, answer.hits);
  const low = Math.max(reading.estimatedTotal, answer.hits.length);
  const high = Math.max(low, reading.seenAreaM2 > 0 ? (answer.hits.length / reading.seenAreaM2) * bboxAreaM2(box) : low);
  // Where the two agree (hits spread over the box), all that is known is "at least": CAPPED_ERROR of it.
  const estimate = Math.sqrt(low * high);
  return { estimate, error: Math.max((high - low) / 2, high === low ? CAPPED_ERROR * low : 0), high };
}

function combine(parts: readonly Part[]): Range {
  let estimate = 0;
  let variance = 0;
  let lowest = 0;
  for (const p of parts) {
    estimate += p.estimate;
    variance += p.error ** 2;
    lowest += p.lowest;
  }
  // A count is positive and its errors multiply (a density off by 2x is as likely as one off by 1/2):
  // the range is the estimate times and over 1 + 2 standard errors, never below what was seen.
  const factor = estimate > 0 ? 1 + (2 * Math.sqrt(variance)) / estimate : 1;
  return { low: Math.round(Math.max(lowest, estimate / factor)), estimate: Math.round(estimate), high: Math.round(estimate * factor) };
}

/** The four quarters of a box. */
function quartersOf(b: BBox): BBox[] {
  const c = bboxCentre(b);
  return [
    [b[0], b[1], c.lon, c.lat],
    [c.lon, b[1], b[2], c.lat],
    [b[0], c.lat, c.lon, b[3]],
    [c.lon, c.lat, b[2], b[3]],
  ];
}

const AREA_SAMPLES = 12;

/** The area of `b` inside the region, m²: the box's own for a bbox region, else by a grid of sample points. */
function areaInRegion(region: Region, b: BBox): number {
  const area = bboxAreaM2(b);
  if (!('geojson' in region)) return area;
  let inside = 0;
  for (let y = 0; y < AREA_SAMPLES; y++) {
    for (let x = 0; x < AREA_SAMPLES; x++) {
      const p = { lon: b[0] + ((x + 0.5) / AREA_SAMPLES) * (b[2] - b[0]), lat: b[1] + ((y + 0.5) / AREA_SAMPLES) * (b[3] - b[1]) };
      if (inRegion(region, p)) inside++;
    }
  }
  return (area * inside) / AREA_SAMPLES ** 2;
}
