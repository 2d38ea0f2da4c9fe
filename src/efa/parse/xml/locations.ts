import { z } from 'zod';
import type { AssignedStop, Location } from '../../records.js';
import { isObject, parseEach, restOf, type Parsed } from '../common.js';
import { globalIdOf } from '../global-id.js';
import { attributeCoord } from './coords.js';
import { descend, element, list, present, requestElement, textOf } from './values.js';

/**
 * xml: StopFinder's `itdStopFinderRequest/itdOdv`: the candidates are `itdOdvName/odvNameElem`
 * (their text the full name, `anyType` the kind, `matchQuality`, `selected`, x/y/mapName, `gid`,
 * `stateless`, `id` or `stopID`), the stops assigned to the input `itdOdvAssignedStops/
 * itdOdvAssignedStop`. Verified on the answers of VRR, MVV, bwegt, VGN, TFI, CTA (Chicago) and STA.
 */
const wireElemSchema = z.looseObject({
  anyType: z.string().optional(),
  matchQuality: z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a number').optional(),
  selected: z.string().optional(),
});

const KNOWN = ['anyType', 'matchQuality', 'selected', 'x', 'y', 'mapName', '#text'] as const;

/**
 * The id other requests accept, by the rule of the legacy dialect: the global id (`gid`) where there
 * is one, else the `stateless` handle, else `id` or `stopID` unless "-1". Kept exactly as sent.
 */
function idOf(raw: Record<string, unknown>): string | undefined {
  return present(raw['gid']) ?? present(raw['stateless']) ?? present(raw['id'], ['', '-1']) ?? present(raw['stopID'], ['', '-1']);
}

function assignedStops(odv: Record<string, unknown>, at: readonly PropertyKey[]): AssignedStop[] | undefined {
  const holder = odv['itdOdvAssignedStops'];
  if (holder === undefined) return undefined;
  return list(element(holder)['itdOdvAssignedStop']).flatMap((entry, i) => {
    const stop = element(entry);
    const id = present(stop['gid']) ?? present(stop['stopID'], ['', '-1']);
    if (id === undefined) return [];
    const coord = attributeCoord(stop, [...at, 'itdOdvAssignedStops', 'itdOdvAssignedStop', i]);
    return [{ id, name: textOf(stop) ?? '', attrs: { ...restOf(stop, ['#text']), ...(coord === undefined ? {} : { coord }) } }];
  });
}

export function parseXmlLocations(body: unknown): Parsed<Location> {
  const at = ['itdRequest', 'itdStopFinderRequest', 'itdOdv'];
  const odv = descend(requestElement(body, 'itdStopFinderRequest'), at.slice(0, 2), ['itdOdv']);
  const odvType = present(odv['type']);
  // An element without attributes is the answer's "nothing identified" (state empty / notidentified).
  const items = list(element(odv['itdOdvName'])['odvNameElem']).filter((entry) => isObject(entry) && idOf(entry) !== undefined);
  const stops = assignedStops(odv, at);
  const schema = wireElemSchema.refine((wire) => (wire.anyType ?? odvType) !== undefined, { message: 'no kind (anyType, or the itdOdv type)' });
  return parseEach('stopFinder', [...at, 'itdOdvName', 'odvNameElem'], items, schema, (wire, raw, path) => {
    const id = idOf(raw) ?? '';
    const globalId = globalIdOf({ id, attributes: new Map(), field: raw['gid'] });
    const coord = attributeCoord(raw, path);
    return {
      id,
      name: textOf(raw) ?? '',
      // `any` asks for every kind; a candidate without anyType is of the kind the itdOdv names (stop, coord).
      type: wire.anyType ?? odvType ?? '',
      isBest: wire.selected === '1',
      // An identified single candidate often carries no quality: it is the only one.
      matchQuality: wire.matchQuality === undefined ? 0 : Number(wire.matchQuality),
      ...(coord === undefined ? {} : { coord }),
      ...(stops === undefined || items.length !== 1 ? {} : { assignedStops: stops }),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: restOf(raw, KNOWN),
    };
  });
}
