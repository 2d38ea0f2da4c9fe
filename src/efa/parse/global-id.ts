import { isObject } from './common.js';

/**
 * Global stop ids (IFOPT / DHID, `de:09162:1`) and the name/value `attrs` lists that carry them.
 * Legacy CoordInfo pins carry `STOP_GLOBAL_ID` in an `attrs` list of `{ name, value }` pairs (MVV:
 * local id 1000001, global de:09162:1); a json-dialect pin may carry the same list; rapidJSON
 * writes the same names as `properties` (TfNSW: STOP_GLOBAL_ID, and STOPPOINT_GLOBAL_ID on a
 * platform). All three are read here, the same way.
 */

/**
 * A `{ name, value }` list (`attrs`, `parameters`) as a lookup; the first entry of a name wins and
 * values are kept as sent (numbers as their decimal text). Flat: entries are not descended into.
 */
export function nameValues(list: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    if (!isObject(entry) || typeof entry['name'] !== 'string' || out.has(entry['name'])) continue;
    const value = entry['value'];
    out.set(entry['name'], typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  }
  return out;
}

/** The named attributes of a raw record: its `attrs` name/value list, then its `properties` object. */
export function recordAttributes(raw: Readonly<Record<string, unknown>>): Map<string, string> {
  const out = nameValues(raw['attrs']);
  const properties = raw['properties'];
  if (isObject(properties)) {
    for (const [name, value] of Object.entries(properties)) {
      if (!out.has(name) && (typeof value === 'string' || typeof value === 'number')) out.set(name, String(value));
    }
  }
  return out;
}

/** `<2 letters>:<digits>:<digits>...`: the IFOPT / DHID form (de:08111:6008, de:08111:6008:1:2). */
const GLOBAL_ID_FORM = /^[A-Za-z]{2}:\d+:\d+(?::.*)?$/;

export function hasGlobalIdForm(id: string): boolean {
  return GLOBAL_ID_FORM.test(id);
}

const nonBlank = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value);

export interface GlobalIdSources {
  /** The record's own id, as stored. */
  readonly id: string | undefined;
  readonly attributes: ReadonlyMap<string, string>;
  /**
   * A stop point (a platform, BUS_POINT): its own global id is STOPPOINT_GLOBAL_ID, while
   * STOP_GLOBAL_ID there names the stop it belongs to.
   */
  readonly stopPoint?: boolean;
  /** The answer says the id is global (rapidJSON `isGlobalId: true`). */
  readonly idIsGlobal?: boolean;
  /** A global id the dialect carries in a field of its own (legacy StopFinder `ref.gid`). */
  readonly field?: unknown;
}

/**
 * The record's global id, as sent: an explicit field or attribute first, then the record's own id
 * when the answer says it is global or it has the IFOPT/DHID form. Undefined when there is none.
 */
export function globalIdOf(sources: GlobalIdSources): string | undefined {
  const attribute = sources.attributes.get(sources.stopPoint === true ? 'STOPPOINT_GLOBAL_ID' : 'STOP_GLOBAL_ID');
  const field = typeof sources.field === 'string' ? sources.field : undefined;
  const explicit = nonBlank(field) ?? nonBlank(attribute);
  if (explicit !== undefined) return explicit;
  const id = nonBlank(sources.id);
  if (id === undefined) return undefined;
  return sources.idIsGlobal === true || hasGlobalIdForm(id) ? id : undefined;
}
