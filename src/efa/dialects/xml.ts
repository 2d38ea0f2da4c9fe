import type { Dialect } from '../dialect.js';
import type { Params } from '../params.js';
import { detectXml } from '../parse/xml/detect.js';
import { parseXmlLocations } from '../parse/xml/locations.js';
import { parseXmlMessages } from '../parse/xml/messages.js';
import { parseXmlNotices } from '../parse/xml/notices.js';
import { parseXmlPins } from '../parse/xml/pins.js';
import { parseXmlProviders } from '../parse/xml/providers.js';
import { parseXmlServingLines } from '../parse/xml/serving-lines.js';

/**
 * Every EFA deployment answers `outputFormat=XML` (root itdRequest): the interface's own format.
 * Positions are asked for in WGS84 decimal degrees as in the legacy dialect; the parsers read what
 * comes (see parse/xml/coords.ts) and stop the run on a grid. `coordListOutputFormat=STRING` asks
 * for path coordinates as one text, which the reader also takes as a list of elements.
 */
const EXTRA: Params = [
  ['outputFormat', 'XML'],
  ['coordOutputFormat', 'WGS84[dd.ddddd]'],
];

/** EFA's native XML (`outputFormat=XML`), read with a streaming parser that refuses DTDs and entities. */
export const xmlDialect: Dialect = {
  name: 'xml',
  extraParams: () => EXTRA,
  parse: {
    coordInfo: parseXmlPins,
    stopFinder: parseXmlLocations,
    servingLines: parseXmlServingLines,
    addInfo: parseXmlNotices,
    opArea: parseXmlProviders,
  },
  messages: parseXmlMessages,
  detect: detectXml,
};
