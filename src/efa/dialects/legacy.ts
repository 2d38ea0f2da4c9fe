import type { Dialect } from '../dialect.js';
import type { Params } from '../params.js';
import { detectLegacy } from '../parse/legacy/detect.js';
import { parseLegacyLocations } from '../parse/legacy/locations.js';
import { parseLegacyMessages } from '../parse/legacy/messages.js';
import { parseLegacyNotices } from '../parse/legacy/notices.js';
import { parseLegacyPins } from '../parse/legacy/pins.js';
import { parseLegacyProviders } from '../parse/legacy/providers.js';
import { parseLegacyServingLines } from '../parse/legacy/serving-lines.js';

/**
 * Real servers answer `outputFormat=JSON` in the server's own map grid (MVTT, MRCV, ...) unless
 * `coordOutputFormat` asks for WGS84; the parsers still check every coordinate, since a gateway
 * may drop the parameter.
 */
const EXTRA: Params = [
  ['outputFormat', 'JSON'],
  ['coordOutputFormat', 'WGS84[dd.ddddd]'],
];

/** Legacy EFA JSON, what real deployments send for `outputFormat=JSON` (MVV, VOR, VRR, ...). */
export const legacyDialect: Dialect = {
  name: 'legacy',
  extraParams: () => EXTRA,
  parse: {
    coordInfo: parseLegacyPins,
    stopFinder: parseLegacyLocations,
    servingLines: parseLegacyServingLines,
    addInfo: parseLegacyNotices,
    opArea: parseLegacyProviders,
  },
  messages: parseLegacyMessages,
  detect: detectLegacy,
};
