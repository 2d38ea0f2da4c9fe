import type { Provider } from '../../records.js';
import { envelopeList, type Parsed } from '../common.js';
import { parseProviderList } from '../providers.js';

/**
 * legacy: OpArea keeps the efa-api.md shape (`providers[]`, `areas[]`) under the legacy header.
 * Ids and names are kept as sent; a grid polygon stops the run.
 */
export function parseLegacyProviders(body: unknown): Parsed<Provider> {
  return parseProviderList(envelopeList(body, 'providers'), { implausible: 'stop' });
}
