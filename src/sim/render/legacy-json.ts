/**
 * Legacy EFA JSON (`outputFormat=JSON` of real servers), shaped like the samples in
 * /work/shared/efa-samples/legacy-json and other/ (same keys, nesting, values as strings), from
 * the same neutral results as the json renderer, so a sweep in either dialect yields the same tables.
 */
import type { Dialect } from './efa-json.js';
import { efaJson } from './efa-json.js';
import { PARAMETERS } from './legacy/common.js';
import { renderAddInfo, renderServingLines, renderStopFinder } from './legacy/lists.js';
import { renderPins } from './legacy/pins.js';

export const legacyJson: Dialect = {
  coord: renderPins,
  stopFinder: renderStopFinder,
  servingLines: renderServingLines,
  addInfo: renderAddInfo,
  // No OpArea body of any real server is known: the efa-api.md shape, under the legacy header.
  opArea: (r) => {
    const body = efaJson.opArea(r);
    return typeof body === 'object' && body !== null ? { parameters: PARAMETERS, ...body } : body;
  },
  error: efaJson.error,
};
