import type { Operation } from '../operations.js';
import type { Notice, Pin, Reject } from '../records.js';
import type { Parsed } from './common.js';
import { isSharingVehicle, sharingProviderOf } from '../sharing.js';

/**
 * One record per id within one answer. An answer can name the same object twice: a notice in
 * `infos.current` and again, older, in `infos.historic`, or two versions of it; a pin twice with
 * different content. Which copy is kept must not depend on the order the server wrote them in, or
 * the stored row would flap between nights. So: the copy a rule prefers (current over historic,
 * the higher `version`), and among equals the first in the order of their canonical JSON. Copies
 * identical to the kept one are dropped silently (they are the same record); every dropped copy
 * with other content is returned as a reject saying why, so nothing is lost without a trace.
 */

/**
 * JSON with object keys sorted, so equal content gives equal text whatever the field order.
 * Recursive, but only over normalised records, whose depth parseEach has bounded (limits.ts).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** How the reason of a reject for a dropped duplicate begins. */
const DUPLICATE_REASON = 'duplicate id';

/**
 * Whether a reject is a dropped duplicate copy: the object itself was received (its kept copy is
 * stored), so unlike other rejects it says nothing about the answer missing objects.
 */
export function isDuplicateReject(reject: Reject): boolean {
  return reject.reason.startsWith(`${DUPLICATE_REASON} `);
}

interface Ranked<T> {
  readonly record: T;
  canonical?: string;
}

/** A record's canonical JSON, computed only for a key that occurs twice (most never do). */
const canonicalOf = <T>(ranked: Ranked<T>): string => (ranked.canonical ??= canonicalJson(ranked.record));

interface DuplicateRule<T> {
  readonly operation: Operation;
  /** The record's key within the answer; undefined for a record without one (kept as it is). */
  key(record: T): string | undefined;
  /** How the key reads in a reject reason. */
  label(record: T): string;
  /** Negative when `a` is to be kept over `b`, positive for the reverse, 0 when the rule has no preference. */
  prefer(a: T, b: T): number;
  /** Why `kept` won over `dropped`, for the reject reason. */
  why(kept: T, dropped: T): string;
}

function resolveDuplicates<T>(records: readonly T[], rule: DuplicateRule<T>): Parsed<T> {
  const groups = new Map<string, Ranked<T>[]>();
  // Keyless records in place, keyed ones at their key's first occurrence.
  const order: ({ readonly keyless: T } | { readonly key: string })[] = [];
  for (const record of records) {
    const key = rule.key(record);
    if (key === undefined) {
      order.push({ keyless: record });
      continue;
    }
    const group = groups.get(key);
    const ranked: Ranked<T> = { record };
    if (group === undefined) {
      groups.set(key, [ranked]);
      order.push({ key });
    } else {
      group.push(ranked);
    }
  }
  const byCanonical = (a: Ranked<T>, b: Ranked<T>): number => {
    const preferred = rule.prefer(a.record, b.record);
    if (preferred !== 0) return preferred;
    const ca = canonicalOf(a);
    const cb = canonicalOf(b);
    return ca < cb ? -1 : ca > cb ? 1 : 0;
  };
  const kept: T[] = [];
  const rejects: Reject[] = [];
  for (const entry of order) {
    if ('keyless' in entry) {
      kept.push(entry.keyless);
      continue;
    }
    const members = groups.get(entry.key) ?? [];
    const group = members.length > 1 ? [...members].sort(byCanonical) : members;
    const [winner, ...rest] = group;
    if (winner === undefined) continue;
    kept.push(winner.record);
    for (const dropped of rest) {
      if (canonicalOf(dropped) === canonicalOf(winner)) continue;
      rejects.push({
        operation: rule.operation,
        reason: `${DUPLICATE_REASON} ${rule.label(dropped.record)} in one answer: ${rule.why(winner.record, dropped.record)}`,
        raw: dropped.record,
      });
    }
  }
  return { records: kept, rejects };
}

/**
 * CoordInfo pins, one per (type, id), and sharing vehicles one per (type, provider, id): providers
 * number their vehicles themselves, so vehicle 1 of two providers is two vehicles (sharing.ts).
 * Pins without an id (POIs often have none) pass unchanged. Returns the kept pins in the order of
 * their first occurrence, and a reject per dropped copy.
 */
export function resolveDuplicatePins(pins: readonly Pin[]): Parsed<Pin> {
  const providerOf = (pin: Pin): string | null => (isSharingVehicle(pin) ? sharingProviderOf(pin) : null);
  return resolveDuplicates(pins, {
    operation: 'coordInfo',
    key: (pin) => (pin.id === undefined ? undefined : `${pin.type}\u0000${providerOf(pin) ?? ''}\u0000${pin.id}`),
    label: (pin) => {
      const provider = providerOf(pin);
      return `${JSON.stringify(pin.id)} (type ${pin.type}${provider === null ? '' : `, provider ${JSON.stringify(provider)}`})`;
    },
    prefer: () => 0,
    why: () => 'another copy with different content is kept (the first in canonical order)',
  });
}

/** A notice's `version` (rapidJSON writes one; legacy may as text), or undefined. */
function versionOf(notice: Notice): number | undefined {
  const version = notice.attrs['version'];
  if (typeof version === 'number' && Number.isFinite(version)) return version;
  if (typeof version === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(version)) return Number(version);
  return undefined;
}

const isHistoric = (notice: Notice): boolean => notice.attrs['publication'] === 'historic';

function preferNotice(a: Notice, b: Notice): number {
  if (isHistoric(a) !== isHistoric(b)) return isHistoric(a) ? 1 : -1;
  const [va, vb] = [versionOf(a), versionOf(b)];
  if (va !== undefined && vb !== undefined && va !== vb) return vb - va;
  // A copy that says its version beats one that does not.
  if ((va === undefined) !== (vb === undefined)) return va === undefined ? 1 : -1;
  return 0;
}

/**
 * AddInfo notices, one per id, the newest kept: a current copy over a historic one (rapidJSON
 * `infos.current` / `infos.historic`, marked `attrs.publication` by the dialect), then the highest
 * `version`, then the first in canonical order. Kept notices come in the order of their first
 * occurrence; every dropped copy with other content is a reject naming why it lost.
 */
export function resolveDuplicateNotices(notices: readonly Notice[]): Parsed<Notice> {
  return resolveDuplicates(notices, {
    operation: 'addInfo',
    key: (notice) => notice.id,
    label: (notice) => JSON.stringify(notice.id),
    prefer: preferNotice,
    why: (kept, dropped) => {
      if (isHistoric(kept) !== isHistoric(dropped)) return 'the current copy is kept over this historic one';
      const [vk, vd] = [versionOf(kept), versionOf(dropped)];
      if (vk !== undefined && vk !== vd) return `version ${vk} is kept over ${vd === undefined ? 'this unversioned copy' : `this version ${vd}`}`;
      return 'another copy with different content is kept (the first in canonical order)';
    },
  });
}
