/** Fault injection: the spec parser and the dice that decide each request's fate. */
import { FaultSpecError } from './errors.js';
import { makeRng, type Rng } from './rng.js';

export interface FaultSpec {
  readonly latency?: { readonly min: number; readonly max: number };
  readonly error5xx?: number;
  readonly rate429?: { readonly rps: number; readonly retryAfterS: number };
  readonly hang?: number;
  readonly truncate?: number;
  readonly malformed?: number;
  readonly html200?: number;
  /** Points whose CoordInfo requests fail with 503 forever; repeat `failbox=` for several. */
  readonly failbox: readonly { readonly lon: number; readonly lat: number }[];
  /**
   * Lies of a broken or hostile deployment, in every CoordInfo box or circle answer: `fullbox`
   * answers `max` objects however small the box (phantoms inside it fill up what the world lacks: an
   * answer that is not spatial); `silentcap=<n>` never answers more than n objects and does not say
   * so; `empty` answers no objects at all.
   */
  readonly fullbox?: boolean;
  readonly silentcap?: number;
  readonly empty?: boolean;
  readonly seed: number;
}

export type DiceFault = 'hang' | 'error5xx' | 'truncate' | 'malformed' | 'html200';
const DICE: readonly DiceFault[] = ['hang', 'error5xx', 'truncate', 'malformed', 'html200'];
const NUM = /^\d+(?:\.\d+)?$/;

export function parseFaultSpec(spec: string): FaultSpec {
  const out: { -readonly [K in keyof FaultSpec]: FaultSpec[K] } = { failbox: [], seed: 1 };
  const failbox: { lon: number; lat: number }[] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    // The lies that take no value may be named alone.
    if (part === 'fullbox' || part === 'empty') {
      out[part] = true;
      continue;
    }
    const eq = part.indexOf('=');
    if (eq < 0) throw new FaultSpecError(part, 'expected key=value');
    const key = part.slice(0, eq), value = part.slice(eq + 1);
    const fail = (detail: string): never => { throw new FaultSpecError(part, detail); };
    switch (key) {
      case 'latency': {
        const m = /^(\d+)(?:-(\d+))?$/.exec(value) ?? fail('expected <min>-<max> milliseconds');
        const min = Number(m[1]), max = Number(m[2] ?? m[1]);
        if (max < min) fail('max is below min');
        out.latency = { min, max };
        break;
      }
      case 'rate429': {
        const m = /^(\d+(?:\.\d+)?):(\d+)$/.exec(value) ?? fail('expected <rps>:<retryAfterSeconds>');
        if (Number(m[1]) <= 0) fail('rps must be positive');
        out.rate429 = { rps: Number(m[1]), retryAfterS: Number(m[2]) };
        break;
      }
      case 'failbox': {
        const m = /^(-?\d+(?:\.\d+)?):(-?\d+(?:\.\d+)?)$/.exec(value) ?? fail('expected <lon>:<lat>');
        failbox.push({ lon: Number(m[1]), lat: Number(m[2]) });
        break;
      }
      case 'silentcap':
        if (!/^\d+$/.test(value) || Number(value) < 1) fail('expected a positive whole number of objects');
        out.silentcap = Number(value);
        break;
      case 'fullbox': case 'empty':
        if (!/^(1|true|0|false)$/.test(value)) fail('expected 1 or 0 (or name it alone)');
        out[key] = value === '1' || value === 'true';
        break;
      case 'seed':
        if (!/^\d+$/.test(value)) fail('expected a non-negative integer');
        out.seed = Number(value);
        break;
      case 'hang': case 'error5xx': case 'truncate': case 'malformed': case 'html200': {
        const share = NUM.test(value) ? Number(value) : NaN;
        if (!(share >= 0 && share <= 1)) fail('expected a share between 0 and 1');
        out[key] = share;
        break;
      }
      default:
        fail(`unknown fault "${key}" (latency, error5xx, rate429, hang, truncate, malformed, html200, failbox, fullbox, silentcap, empty, seed)`);
    }
  }
  const lies = (['fullbox', 'silentcap', 'empty'] as const).filter((k) => out[k] !== undefined && out[k] !== false);
  if (lies.length > 1) throw new FaultSpecError(spec, `${lies.join(' and ')} contradict each other: give one`);
  const total = DICE.reduce((s, k) => s + (out[k] ?? 0), 0);
  if (total > 1) throw new FaultSpecError(spec, `shares of ${DICE.join('/')} add up to ${total} > 1`);
  return { ...out, failbox };
}

export interface Roll {
  readonly fault?: DiceFault;
  readonly status5xx: number;
  readonly latencyMs: number;
}

/** Deterministic for a given request order: every request draws the same number of values. */
export class FaultEngine {
  private readonly rng: Rng;
  private readonly arrivals: number[] = [];

  constructor(readonly spec: FaultSpec) {
    this.rng = makeRng(spec.seed);
  }

  /** Records an arrival; true when it exceeds the rate429 ceiling (sliding one-second window). */
  overRate(now: number): boolean {
    const r = this.spec.rate429;
    if (!r) return false;
    this.arrivals.push(now);
    while (this.arrivals.length > 0 && (this.arrivals[0] ?? 0) <= now - 1000) this.arrivals.shift();
    return this.arrivals.length > r.rps;
  }

  roll(): Roll {
    const u = this.rng(), v = this.rng(), w = this.rng();
    let acc = 0, fault: DiceFault | undefined;
    for (const k of DICE) {
      acc += this.spec[k] ?? 0;
      if (u < acc) { fault = k; break; }
    }
    const l = this.spec.latency;
    return {
      ...(fault ? { fault } : {}),
      status5xx: [500, 502, 503][Math.floor(v * 3)] ?? 500,
      latencyMs: l ? Math.round(l.min + w * (l.max - l.min)) : 0,
    };
  }
}
