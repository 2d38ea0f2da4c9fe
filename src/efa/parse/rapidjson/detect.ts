import { isObject } from '../common.js';

/**
 * Whether a body is rapidJSON. Every rapidJSON sample has a top-level `version` string; the json
 * dialect (efa-api.md) and legacy JSON (`parameters`, `stopFinder.points`, `pins`) have none. The
 * record shapes decide as well, so a body without `version` is still recognised by what only
 * rapidJSON writes: `locations[]` with array `coord`, `lines[]` with a `product` object, `infos`
 * as an object with `current`/`historic`, `operatingAreas[]` (the published schema's OpArea answer).
 */
export function detectRapid(body: unknown): boolean {
  if (!isObject(body) || 'parameters' in body || 'pins' in body || 'stopFinder' in body) return false;
  const locations = body['locations'];
  if (Array.isArray(locations) && isObject(locations[0]) && Array.isArray(locations[0]['coord'])) return true;
  const lines = body['lines'];
  if (Array.isArray(lines) && isObject(lines[0]) && isObject(lines[0]['product'])) return true;
  const infos = body['infos'];
  if (isObject(infos) && (Array.isArray(infos['current']) || Array.isArray(infos['historic']))) return true;
  // The published schema's OpArea answer: no other dialect has `operatingAreas`.
  if (Array.isArray(body['operatingAreas'])) return true;
  // An answer without records (or an OpArea answer in the efa-api.md shape) still has the envelope.
  return typeof body['version'] === 'string' && ['locations', 'lines', 'providers', 'operatingAreas', 'systemMessages'].some((key) => key in body);
}
