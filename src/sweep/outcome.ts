import type { RejectInput } from '../db/ledger.js';
import type { KeptStatus } from '../db/unit-status.js';
import type { EfaResult, Pin } from '../efa/index.js';
import { errorText } from '../errors.js';
import { inRegion, ownsPoint, type BBox, type Region, type Tile } from '../tiling/index.js';
import { redactText } from '../util/redact.js';
import type { BoxVerdict } from './judge.js';

/** How a kept answer stands: complete (it may delete), cut at the cap, or missing records (the ledger's words). */
export type { KeptStatus };

/**
 * What one box answer comes to. `failed`: nothing of it is stored (the request failed, or the answer
 * cannot be trusted: all rejected, or mostly outside its box); `split`: it reached the cap and its
 * children are to be asked instead; `kept`: it is stored, each tile keeping only the objects it owns.
 * `received` counts what the answer held (parsed and rejected alike), 0 for a failed request.
 */
export type TileOutcome = FailedOutcome | SplitOutcome | KeptOutcome;

export interface FailedOutcome {
  readonly kind: 'failed';
  /** Redacted: safe to log and store. */
  readonly error: string;
  readonly attempts: number;
  readonly received: number;
  /** What the answer held that could not be used (efa.rejects), for an answer that was untrusted. */
  readonly rejects: readonly RejectInput[];
}

export interface SplitOutcome {
  readonly kind: 'split';
  readonly children: readonly Tile[];
  readonly attempts: number;
  readonly received: number;
}

export interface KeptOutcome {
  readonly kind: 'kept';
  readonly status: KeptStatus;
  readonly attempts: number;
  readonly received: number;
  /** Every object the answer placed inside the box (expanded: a station stands for its vehicles). */
  readonly inside: readonly Pin[];
  /** Of those, the ones this tile owns inside the region (half-open edges): what it stores. */
  readonly owned: readonly Pin[];
  /** The answer's rejects and its records outside the box (efa.rejects). */
  readonly rejects: readonly RejectInput[];
  /** Why an `incomplete` answer may lack objects. */
  readonly reason?: string;
  /** Why a `capped` answer was not split: too small to split, or its branch answers whatever the box. */
  readonly unsplit?: 'too-small' | 'not-spatial';
}

/** Where a sweep stores: its region, and what one answered object stands for (default: itself). */
export interface Placement {
  readonly region: Region;
  readonly regionBBox: BBox;
  readonly expand?: ((pin: Pin) => Pin[]) | undefined;
  readonly secrets: readonly string[];
}

/** A request that failed: a gap, recorded with its (redacted) reason. */
export function failure(error: unknown, secrets: readonly string[], attempts = 0): FailedOutcome {
  return { kind: 'failed', error: redactText(typeof error === 'string' ? error : errorText(error), secrets), attempts, received: 0, rejects: [] };
}

/**
 * The pure end of the decision: a judged answer, and (for a capped one) what splitting it gave,
 * come to one outcome. The status follows the verdict; an answer whose branch is not spatial says
 * nothing about what lies in its box, so none of it is owned (stored).
 */
export function settle(
  tile: Tile,
  result: EfaResult<Pin>,
  verdict: BoxVerdict,
  split: readonly Tile[] | 'too-small' | 'not-spatial' | undefined,
  place: Placement,
): TileOutcome {
  const { attempts } = result;
  const received = verdict.received;
  const rejects = [...result.rejects, ...verdict.outside];
  if (verdict.kind === 'untrusted') return { kind: 'failed', error: redactText(verdict.reason, place.secrets), attempts, received, rejects };
  if (typeof split === 'object') return { kind: 'split', children: split, attempts, received };
  const inside = place.expand ? verdict.inside.flatMap(place.expand) : verdict.inside;
  const owned = split === 'not-spatial' ? [] : inside.filter((h) => ownsPoint(tile, h.coord, place.regionBBox) && inRegion(place.region, h.coord));
  const status: KeptStatus = verdict.kind === 'capped' ? 'capped' : verdict.kind === 'incomplete' ? 'incomplete' : 'done';
  return {
    kind: 'kept',
    status,
    attempts,
    received,
    inside,
    owned,
    rejects,
    ...(verdict.kind === 'incomplete' ? { reason: verdict.reason } : {}),
    ...(typeof split === 'string' ? { unsplit: split } : {}),
  };
}
