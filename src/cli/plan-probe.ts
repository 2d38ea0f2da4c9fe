import type { Job, ResolvedRegion } from '../job/index.js';
import { createJobClient } from '../run/client.js';
import { coordRequest } from '../sweep/nightly/coord.js';
import { inRegion, type BBox } from '../tiling/index.js';
import { probeDensity, type DensityEstimate, type ProbeAnswer, type Range } from '../tiling/density-probe.js';
import { SPLIT_FILL, SPLIT_MAX_CHILDREN } from '../tiling/split.js';
import { makeTile } from '../tiling/geo.js';
import { errorText, UpstreamUnavailableError } from '../errors.js';
import { assertUpstreamUsable, probeUpstream } from '../run/probe.js';
import { classifyFailure, isTemporaryOutcome } from '../run/probe-outcome.js';
import { resolveHeaders } from '../job/index.js';
import { collectSecrets, redactText } from '../util/redact.js';
import type { Logger } from '../util/log.js';
import { formatTable } from '../util/table.js';
import { sweptPinTypes } from '../relations/index.js';

/**
 * Per request of the preflight (one retry): an answer to a box of a few hundred metres asking for one
 * pin takes well under a second on a working deployment; a hanging upstream is known within about twice this.
 */
const PREFLIGHT_TIMEOUT_MS = 4_000;

/** What a plan says per operation, before any answer (the NightPlan's budget). */
export interface PlannedRequests {
  readonly coord: number;
  readonly servingLines: number;
  readonly stopFinder: number;
  readonly opArea: number;
  readonly addInfo: number;
}

/** The requests and the duration of a night, each as a range, and where the range came from. */
export interface NightEstimate {
  readonly basis: 'probe' | 'known';
  readonly requests: { readonly coord: Range; readonly servingLines: Range; readonly stopFinder: Range; readonly opArea: Range; readonly addInfo: Range; readonly total: Range };
  /** Seconds at the job's ceiling: requestsPerSecond, or concurrency over the answers' latency where that is lower. */
  readonly durationS: Range;
  readonly ceiling: { readonly requestsPerSecond: number; readonly concurrency: number; readonly latencyMs?: { readonly min: number; readonly median: number; readonly p90: number } };
  readonly density?: DensityEstimate;
  /** Figures of the job's earlier finished runs, where the database has them. */
  readonly earlierNights?: EarlierNights;
}

export interface EarlierNights {
  readonly runs: number;
  readonly requests: { readonly min: number; readonly max: number };
  readonly durationS: { readonly min: number; readonly max: number };
}

/**
 * `plan --probe N`: N CoordInfo requests of the job (its types and `max`, at its rate limit) over
 * sample boxes of the region, read as the region's pin and stop counts (src/tiling/density-probe.ts).
 * A box that fails is left out (the probe sends no more than N requests, retries aside).
 */
export async function probeRegion(job: Job, region: ResolvedRegion, n: number, log: Logger, o: { readonly baseUrl?: string | undefined } = {}): Promise<DensityEstimate> {
  const cfg = job.sweeps.coord;
  if (!cfg) throw new Error('plan --probe needs sweeps.coord');
  // First the check `run` makes before planning, with a bounded wait: an upstream that is down, does
  // not resolve, hangs or answers only 5xx is exit 75 (try again later), a wrong URL or dialect exit 2,
  // before N sample requests each wait out the job's timeout and retries.
  assertUpstreamUsable(await probeUpstream({ job, region }, { baseUrl: o.baseUrl, timeoutMs: Math.min(job.rateLimit.timeoutMs, PREFLIGHT_TIMEOUT_MS) }));
  const { client } = createJobClient(job, { log, requestBudget: n * (1 + job.rateLimit.retries) });
  const polygon = 'geojson' in region;
  const headers = resolveHeaders(job);
  const secrets = collectSecrets({ urls: [job.baseUrl], headers, secretNames: Object.keys(headers) });
  let failures = 0;
  let temporaryFailures = 0;
  let firstError: unknown;
  const ask = async (bbox: BBox): Promise<ProbeAnswer | undefined> => {
    try {
      const answer = await client.coordInfoBox(coordRequest(cfg, makeTile(bbox, 0)));
      const hits = answer.records.filter((p) => !polygon || inRegion(region, p.coord));
      return {
        hits: hits.map((p) => p.coord),
        stops: hits.filter((p) => p.type === 'STOP').length,
        capped: answer.records.length + answer.rejects.length >= cfg.maxPerRequest,
        durationMs: answer.durationMs,
      };
    } catch (error) {
      failures++;
      firstError ??= error;
      if (isTemporaryOutcome(classifyFailure('coordInfo', error, job.dialect, undefined))) temporaryFailures++;
      // One line per box up to a few: a refused upstream fails them all for the same reason.
      if (failures <= 3) log.warn(redactText(`probe box ${bbox.map((x) => x.toFixed(5)).join(',')} failed: ${errorText(error)}`, secrets));
      return undefined;
    }
  };
  const density = await probeDensity(region, n, ask);
  // None answered: the first failure is the command's (its exit code tells a refused upstream from a bad
  // URL); every one failing for want of an upstream (the preflight passed, then it went away) is exit 75.
  if (density.probes.answered === 0) {
    if (firstError !== undefined && temporaryFailures === failures) {
      throw new UpstreamUnavailableError(`the upstream ${job.baseUrl.replace(/[?#].*$/, '')} stopped answering during plan --probe: ${errorText(firstError)}. Try again later (exit 75)`, { cause: firstError });
    }
    throw firstError ?? new Error('plan --probe: no probe request was answered');
  }
  if (failures > 0) log.warn(`plan --probe: ${failures} of ${density.probes.sent} probe requests failed; the estimate rests on the others`);
  return density;
}

const ceilRange = (r: Range, f: (x: number) => number): Range => ({ low: Math.ceil(f(r.low)), estimate: Math.ceil(f(r.estimate)), high: Math.ceil(f(r.high)) });
const exact = (n: number): Range => ({ low: n, estimate: n, high: n });
const sum = (...rs: Range[]): Range => rs.reduce((a, r) => ({ low: a.low + r.low, estimate: a.estimate + r.estimate, high: a.high + r.high }), exact(0));

/**
 * CoordInfo requests of a first night with `pins` in the region, from how the tiling splits: the
 * region's tile comes back capped and is cut into children sized for SPLIT_FILL × max (at most
 * SPLIT_MAX_CHILDREN per cut), each capped child is cut again. At least the floor ceil(pins / max)
 * and the region's own request; about the leaves at SPLIT_FILL and one request per cut above them;
 * at most every leaf re-split once (a guess from a capped answer off by half or more).
 */
export function coordRequestsFromPins(pins: Range, maxPerRequest: number): Range {
  const leaves = (n: number): number => Math.max(1, Math.ceil(n / (SPLIT_FILL * maxPerRequest)));
  const cuts = (l: number): number => (l <= 1 ? 0 : Math.ceil((l - 1) / (SPLIT_MAX_CHILDREN - 1)));
  const low = Math.max(1, Math.ceil(pins.low / maxPerRequest)) + (pins.low > maxPerRequest ? 1 : 0);
  const estimate = leaves(pins.estimate) + cuts(leaves(pins.estimate)) + (pins.estimate > maxPerRequest ? 1 : 0);
  const high = 2 * leaves(pins.high) + cuts(leaves(pins.high)) + 1;
  return { low, estimate: Math.max(low, estimate), high: Math.max(estimate, high) };
}

/** The night's range: from the probe's counts where one ran, else from what the database knows. */
export function estimateNight(job: Job, b: PlannedRequests, density: DensityEstimate | undefined, earlier: EarlierNights | undefined): NightEstimate {
  const lineNames = job.sweeps.servingLines?.lineNames.length ?? 0;
  const coord = job.sweeps.coord;
  const sweepsStops = coord !== undefined && (sweptPinTypes(coord).any || sweptPinTypes(coord).types.includes('STOP'));
  let requests: NightEstimate['requests'];
  if (density && coord) {
    const servingLines = job.sweeps.servingLines?.forStops && sweepsStops ? sum(density.stops, exact(lineNames)) : exact(b.servingLines);
    const parts = { coord: coordRequestsFromPins(density.pins, coord.maxPerRequest), servingLines, stopFinder: exact(b.stopFinder), opArea: exact(b.opArea), addInfo: exact(b.addInfo) };
    requests = { ...parts, total: sum(...Object.values(parts)) };
  } else {
    // From known pins: the planned tiles are the low end; new pins may re-split up to a quarter of them.
    const parts = {
      coord: { low: b.coord, estimate: b.coord, high: Math.ceil(b.coord * 1.25) },
      servingLines: exact(b.servingLines),
      stopFinder: exact(b.stopFinder),
      opArea: exact(b.opArea),
      addInfo: exact(b.addInfo),
    };
    requests = { ...parts, total: sum(...Object.values(parts)) };
  }
  if (earlier) requests = { ...requests, total: { ...requests.total, low: Math.min(requests.total.low, earlier.requests.min), high: Math.max(requests.total.high, earlier.requests.max) } };
  const { requestsPerSecond: rps, concurrency } = job.rateLimit;
  const latency = density?.probes.latencyMs;
  // Requests in flight are bounded too: with answers of L seconds, no more than concurrency / L per second.
  const rate = (ms: number | undefined): number => (ms === undefined || ms <= 0 ? rps : Math.min(rps, concurrency / (ms / 1000)));
  let durationS: Range = {
    low: round1(requests.total.low / rps),
    estimate: round1(requests.total.estimate / rate(latency?.median)),
    high: round1(requests.total.high / rate(latency?.median)),
  };
  if (earlier) durationS = { ...durationS, low: Math.min(durationS.low, earlier.durationS.min), high: Math.max(durationS.high, earlier.durationS.max) };
  return {
    basis: density ? 'probe' : 'known',
    requests,
    durationS,
    ceiling: { requestsPerSecond: rps, concurrency, ...(latency ? { latencyMs: latency } : {}) },
    ...(density ? { density } : {}),
    ...(earlier ? { earlierNights: earlier } : {}),
  };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

export function estimateText(e: NightEstimate): string {
  const out: string[] = [];
  const d = e.density;
  if (d) {
    const p = d.probes;
    out.push(
      `probe: ${p.sent} CoordInfo requests over ${p.strata} strata of the region (${p.answered} answered, ${p.capped} capped at max; ` +
        `${p.strataCappedOnly} box(es) capped even at the finest probe, their density only a lower bound and a guess), median answer ${Math.round(p.latencyMs.median)} ms`,
    );
    out.push(`the region holds about ${d.pins.estimate} pins (${d.pins.low}–${d.pins.high}), ${d.stops.estimate} of them stops (${d.stops.low}–${d.stops.high})`);
  }
  if (e.earlierNights) {
    const n = e.earlierNights;
    out.push(`earlier nights of this job (${n.runs} finished runs): ${n.requests.min}–${n.requests.max} requests, ${n.durationS.min}–${n.durationS.max} s`);
  }
  out.push(`estimate of the night (${e.basis === 'probe' ? 'from the probe' : 'from the known pins'}):`);
  const rows = Object.entries(e.requests)
    .filter(([k, r]) => k === 'total' || r.high > 0)
    .map(([k, r]) => [k, String(r.low), String(r.estimate), String(r.high)]);
  out.push(formatTable(['operation', 'low', 'estimate', 'high'], rows));
  const c = e.ceiling;
  out.push(
    `duration at ${c.requestsPerSecond} req/s, concurrency ${c.concurrency}${c.latencyMs ? ` (median answer ${Math.round(c.latencyMs.median)} ms)` : ''}: ` +
      `${e.durationS.low}–${e.durationS.high} s (estimate ${e.durationS.estimate} s), database writes and retries not counted. ` +
      'Size TimeoutStartSec, activeDeadlineSeconds and the cron window from the high end, with headroom.',
  );
  return out.join('\n');
}
