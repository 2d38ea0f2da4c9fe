import { isObject } from '../common.js';

const isPair = (entry: unknown): boolean => isObject(entry) && typeof entry['name'] === 'string' && 'value' in entry;

/**
 * Whether a body is legacy EFA JSON. Legacy answers open with `parameters` (a name/value list:
 * serverID, requestID, calcTime, ...), which neither the json shapes nor rapidJSON (`version`,
 * `serverInfo`) have; without it, the operation envelopes give it away: `pins[]` records with a
 * `desc` or a `coords` string (json/rapidJSON write `name` and `coord`), the `stopFinder` object,
 * `servingLines` as an object with `lines` (json: an array), or `additionalInformation`.
 */
export function detectLegacy(body: unknown): boolean {
  if (!isObject(body)) return false;
  const parameters = body['parameters'];
  if (Array.isArray(parameters) && parameters.length > 0 && parameters.every(isPair)) return true;
  const pins = body['pins'];
  if (Array.isArray(pins)) {
    const first: unknown = pins[0];
    return isObject(first) && (typeof first['desc'] === 'string' || typeof first['coords'] === 'string');
  }
  if (isObject(body['stopFinder'])) return true;
  const servingLines = body['servingLines'];
  if (isObject(servingLines) && 'lines' in servingLines) return true;
  return isObject(body['additionalInformation']);
}
