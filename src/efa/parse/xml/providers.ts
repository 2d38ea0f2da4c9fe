import type { Provider } from '../../records.js';
import type { Parsed } from '../common.js';
import { parseProviderList } from '../providers.js';
import { element, list, requestElement, textOf } from './values.js';

/**
 * xml: OpArea. NO real OpArea body exists in any format; this reads efa-api.md's shape written as
 * elements (inferred): `itdOpAreaRequest/providers/provider` with `id`, `name`, `vehicleType`
 * attributes and `areas/area` with `id`, `name` and a `polygon` text of "lat,lon" pairs, the form
 * the shared polygon reader takes from the other dialects. Ids and names as sent; a grid polygon stops the run.
 */
export function parseXmlProviders(body: unknown): Parsed<Provider> {
  const request = requestElement(body, 'itdOpAreaRequest');
  const providers = list(element(request['providers'])['provider']).map((entry) => {
    const provider = element(entry);
    const areas = list(element(provider['areas'])['area']).map((area) => {
      const { polygon, ...rest } = element(area);
      return { ...rest, ...(polygon === undefined ? {} : { polygon: textOf(polygon) }) };
    });
    const { areas: _areas, ...rest } = provider;
    return { ...rest, areas };
  });
  return parseProviderList(providers, { implausible: 'stop' });
}
