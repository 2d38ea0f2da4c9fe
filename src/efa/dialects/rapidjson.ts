import type { Dialect } from '../dialect.js';
import type { Params } from '../params.js';
import { detectRapid } from '../parse/rapidjson/detect.js';
import { parseRapidServingLines } from '../parse/rapidjson/lines.js';
import { parseRapidLocations, parseRapidPins } from '../parse/rapidjson/locations.js';
import { parseRapidMessages } from '../parse/rapidjson/messages.js';
import { parseRapidNotices } from '../parse/rapidjson/notices.js';
import { parseRapidProviders } from '../parse/rapidjson/providers.js';

/**
 * `coordOutputFormat=EPSG:4326` rather than `WGS84[dd.ddddd]`: the TfNSW gateway, the one
 * rapidJSON deployment with a published description, allows only EPSG:4326 (its OpenAPI enum),
 * and its sample answers were made with it. EFA servers without the parameter answer in their
 * grid, which the parsers stop with EfaCoordinateFormatError; a deployment that wants the other
 * name can get it through the base URL's query, which is sent first.
 */
const EXTRA: Params = [
  ['outputFormat', 'rapidJSON'],
  ['coordOutputFormat', 'EPSG:4326'],
];

/**
 * EFA's `outputFormat=rapidJSON` (TfNSW, NVBW/efa-bw, VVS): `locations[]` for CoordInfo and
 * StopFinder with [lat, lon] coordinates, `lines[]` for ServingLines, `infos.current[]`/
 * `infos.historic[]` for AddInfo, and for OpArea the published schema's `operatingAreas[]` or the
 * efa-api.md shape (no public OpArea body exists in any dialect).
 */
export const rapidJsonDialect: Dialect = {
  name: 'rapidjson',
  extraParams: () => EXTRA,
  parse: {
    coordInfo: parseRapidPins,
    stopFinder: parseRapidLocations,
    servingLines: parseRapidServingLines,
    addInfo: parseRapidNotices,
    opArea: parseRapidProviders,
  },
  messages: parseRapidMessages,
  detect: detectRapid,
};
