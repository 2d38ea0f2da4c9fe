import type { Dialect } from '../dialect.js';
import { OPERATIONS, type Operation } from '../operations.js';
import type { Params } from '../params.js';
import { isObject } from '../parse/common.js';
import { parseLocations } from '../parse/locations.js';
import { parseMessages } from '../parse/messages.js';
import { parseNotices } from '../parse/notices.js';
import { parsePins } from '../parse/pins.js';
import { parseProviders } from '../parse/providers.js';
import { parseServingLines } from '../parse/serving-lines.js';

const OUTPUT_FORMAT: Params = [['outputFormat', 'JSON']];

/** The list key each operation answers with in this dialect. */
const LIST_KEYS: Readonly<Record<Operation, string>> = {
  coordInfo: 'pins',
  stopFinder: 'locations',
  servingLines: 'servingLines',
  addInfo: 'infos',
  opArea: 'providers',
};

/** The shapes documented in efa-api.md, requested with `outputFormat=JSON`. */
export const jsonDialect: Dialect = {
  name: 'json',
  extraParams: () => OUTPUT_FORMAT,
  parse: {
    coordInfo: parsePins,
    stopFinder: parseLocations,
    servingLines: parseServingLines,
    addInfo: parseNotices,
    opArea: parseProviders,
  },
  messages: parseMessages,
  detect,
};

/**
 * Legacy EFA JSON nests its lists under objects (`stopFinder.points`); rapidJSON shares the
 * `locations` key but writes coordinates as [lat, lon] arrays. So: a top-level list under one of
 * this dialect's keys whose first record, if any, does not carry an array `coord`.
 */
function detect(body: unknown): boolean {
  if (!isObject(body)) return false;
  // Legacy answers carry a `parameters` header and name/value lists; rapidJSON a `version`.
  if (Array.isArray(body['parameters']) || 'version' in body) return false;
  return OPERATIONS.some((operation) => {
    const list = body[LIST_KEYS[operation]];
    if (!Array.isArray(list)) return false;
    const first: unknown = list[0];
    if (first === undefined) return true;
    if (!isObject(first)) return false;
    // A documented pin or location has an object `coord`; legacy pins have `coords` text instead.
    if (operation === 'coordInfo' || operation === 'stopFinder') return isObject(first['coord']) || first['coord'] === undefined && !('coords' in first);
    return true;
  });
}
