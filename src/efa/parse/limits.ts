/**
 * Bounds on what one record of an answer may be. A record beyond them becomes a reject with its
 * reason: a hostile or broken answer (a pin nested 3,000 levels deep, a megabyte "name") must cost
 * that record, never the run, and must never reach code that walks it recursively (zod, the content
 * hash, jsonb input) with the whole call stack at stake.
 */

/** Deepest nesting of objects and arrays in one record (the real samples reach 11, TfNSW AddInfo). */
export const MAX_RECORD_DEPTH = 64;

/** Longest id or name, in UTF-16 code units (the longest in the real samples is 253). */
export const MAX_FIELD_CHARS = 1000;

/**
 * The nesting depth of `value`: 0 for a scalar, 1 for a flat object or array. Walked with an
 * explicit stack, so any depth is measured without recursion; it stops counting just past `limit`.
 */
export function nestingDepth(value: unknown, limit = MAX_RECORD_DEPTH): number {
  let deepest = 0;
  // Two parallel stacks rather than a [node, depth] pair per node: this runs on every record of every answer.
  const nodes: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === 'object') {
    nodes.push(value);
    depths.push(1);
  }
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>;
    const depth = depths.pop() as number;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const key in node) {
      const child = node[key];
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}

/** Where a too-deep record is cut for `efa.rejects.raw`. */
export const CUT_MARKER = `(nested deeper than ${MAX_RECORD_DEPTH} levels: cut)`;

/**
 * A copy of `value` cut at `limit` levels, for the reject's `raw`: the database's jsonb parser
 * recurses too. The recursion is bounded by `limit`.
 */
export function cutAtDepth(value: unknown, limit = MAX_RECORD_DEPTH): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (limit <= 0) return CUT_MARKER;
  if (Array.isArray(value)) return value.map((item) => cutAtDepth(item, limit - 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = cutAtDepth(inner, limit - 1);
  return out;
}

/**
 * Longest notice text (AddInfo `text`), in UTF-16 code units. The longest in the real samples is 1,667
 * (TfNSW `content`); a megabyte text was once stored whole. A notice's title is bounded like a name.
 */
export const MAX_TEXT_CHARS = 100_000;

/** Fields of a normalised record (and of its areas and assigned stops) that are ids, names or a notice's title and text, with their bounds. */
const LIMITED_FIELDS: readonly (readonly [field: string, limit: number])[] = [
  ['id', MAX_FIELD_CHARS],
  ['name', MAX_FIELD_CHARS],
  ['type', MAX_FIELD_CHARS],
  ['number', MAX_FIELD_CHARS],
  ['title', MAX_FIELD_CHARS],
  ['text', MAX_TEXT_CHARS],
];
const NESTED_LISTS = ['areas', 'assignedStops'] as const;

function longField(record: Record<string, unknown>, prefix: string): string | undefined {
  for (const [field, limit] of LIMITED_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value.length > limit) {
      return `${prefix}${field} is ${value.length} characters long (at most ${limit})`;
    }
  }
  return undefined;
}

/**
 * Why a normalised record breaks the field limits, or undefined. Checks the ids, names, titles and texts of the
 * record and of its nested areas (OpArea) and assigned stops (StopFinder): one level, no recursion.
 */
export function fieldLimitProblem(record: unknown): string | undefined {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const fields = record as Record<string, unknown>;
  const own = longField(fields, '');
  if (own !== undefined) return own;
  for (const list of NESTED_LISTS) {
    const items = fields[list];
    if (!Array.isArray(items)) continue;
    for (const [index, item] of items.entries()) {
      if (item === null || typeof item !== 'object') continue;
      const problem = longField(item as Record<string, unknown>, `${list}[${index}].`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/**
 * Most points one area geometry (an OpArea polygon, a rapidJSON operatingZone) may have. A real
 * business area has hundreds to a few thousand; a million-point polygon took 2 GB of memory to
 * read. Beyond the cap the record is a reject with its reason, its raw record cut.
 */
export const MAX_AREA_POINTS = 50_000;

/**
 * The points of a polygon as received, counted without building anything: a position is an array
 * whose first element is no array, a "lat,lon lat,lon" text counts its pairs. Iterative; stops
 * counting just past `limit`.
 */
export function areaPointCount(value: unknown, limit = MAX_AREA_POINTS): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    if (typeof node === 'string') {
      count += node.split(/[\s;]+/, limit + 2).filter((pair) => pair !== '').length;
    } else if (Array.isArray(node)) {
      if (node.length > 0 && !Array.isArray(node[0]) && typeof node[0] !== 'string' && (node[0] === null || typeof node[0] !== 'object')) count += 1;
      else for (const child of node) stack.push(child);
    } else if (node !== null && typeof node === 'object') {
      for (const child of Object.values(node)) stack.push(child);
    }
  }
  return count;
}
