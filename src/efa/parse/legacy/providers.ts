import type { Provider } from '../../records.js';
import { envelopeList, type Parsed } from '../common.js';
import { parseProviderList } from '../providers.js';
import { repairRecord } from './values.js';

/**
 * legacy: OpArea keeps the efa-api.md shape (`providers[]`, `areas[]`) under the legacy header.
 * Every string of a provider is repaired for mojibake before parsing, as in the other legacy lists;
 * a grid polygon stops the run.
 */
export function parseLegacyProviders(body: unknown): Parsed<Provider> {
  return parseProviderList(envelopeList(body, 'providers').map(repairRecord), { implausible: 'stop' });
}
