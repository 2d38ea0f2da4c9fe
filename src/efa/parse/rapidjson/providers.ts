import type { Provider } from '../../records.js';
import { envelopeList, type Parsed } from '../common.js';
import { parseProviderList } from '../providers.js';

/**
 * OpArea in the rapidJSON profile. No rapidJSON (or any) OpArea body is public, so this keeps the
 * efa-api.md shape; provider and area names are kept as sent, like every id and name, and a grid
 * polygon stops the run.
 */
export function parseRapidProviders(body: unknown): Parsed<Provider> {
  return parseProviderList(envelopeList(body, 'providers'), { implausible: 'stop' });
}
