/**
 * rapidJSON `locations[]` for CoordInfo and StopFinder, shaped like the TfNSW and NVBW samples:
 * `coord` as [lat, lon], MOT ids as `productClasses`, a `parent` locality, extra fields under
 * `properties`. The pin type is written as the rapidJSON location type the client maps back.
 */
import type { CoordResult, PinOut } from '../../ops/coord.js';
import type { StopFinderResult } from '../../ops/stopfinder.js';
import type { PinType } from '../../types.js';
import { STOP_GLOBAL_ID, wireStopIds, type WireStopIds } from '../stop-ids.js';

/** rapidJSON's kind per pin type; a BUS_POINT search answers `platform` (TfNSW sample). */
const LOCATION_TYPES: Readonly<Record<PinType, string>> = {
  STOP: 'stop',
  BUS_POINT: 'platform',
  POI_POINT: 'poi',
  POI_AREA: 'poi',
  GIS_POINT: 'gisPoint',
  PARKING: 'parking',
  SHARING: 'sharing',
};

/** `type: poi` covers both POI kinds; the draw class type tells them apart (sample: `POINT`). */
const DRAW_CLASS_TYPES: Partial<Record<PinType, string>> = { POI_POINT: 'POINT', POI_AREA: 'AREA' };

const RESERVED = new Set(['type', 'id', 'name', 'coord', 'motTypes']);

/**
 * A stop's ids as the TfNSW and NVBW samples send them: `isGlobalId` says whether `id` is the
 * global id; `properties.stopId` is the local number and `properties.STOP_GLOBAL_ID` the global id.
 */
export function rapidStopIds(ids: WireStopIds): { isGlobalId: boolean; properties: Record<string, string> } {
  return {
    isGlobalId: ids.idIsGlobal,
    properties: { stopId: ids.local, ...(ids.global === undefined ? {} : { [STOP_GLOBAL_ID]: ids.global }) },
  };
}

/** The locality above an object, when the world knows one (POIs name it, stops carry an omc). */
function parentOf(extra: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const locality = typeof extra['locality'] === 'string' ? extra['locality'] : undefined;
  const omc = typeof extra['omc'] === 'string' ? extra['omc'] : undefined;
  if (locality === undefined && omc === undefined) return undefined;
  return { ...(omc === undefined ? {} : { id: `placeID:${omc}:1` }), name: locality ?? '', type: 'locality' };
}

function pinLocation({ pin, motTypes, distanceM, extra }: PinOut): Record<string, unknown> {
  const properties: Record<string, unknown> = { distance: Math.round(distanceM) };
  const drawClassType = DRAW_CLASS_TYPES[pin.type];
  if (drawClassType !== undefined) properties['POI_DRAW_CLASS_TYPE'] = drawClassType;
  for (const [k, v] of Object.entries(extra)) if (!RESERVED.has(k)) properties[k] = v;
  const parent = parentOf(extra);
  const isStop = pin.type === 'STOP';
  const stop = isStop && pin.id !== undefined ? rapidStopIds(wireStopIds({ id: pin.id, globalId: pin.globalId })) : undefined;
  if (stop) Object.assign(properties, stop.properties);
  return {
    ...(pin.id === undefined ? {} : { id: pin.id }),
    ...(stop ? { isGlobalId: stop.isGlobalId } : {}),
    name: pin.name,
    ...(isStop || pin.type === 'BUS_POINT' ? { disassembledName: pin.name } : {}),
    type: LOCATION_TYPES[pin.type],
    coord: [pin.lat, pin.lon],
    ...(parent === undefined ? {} : { parent }),
    ...(isStop ? { productClasses: [...(motTypes ?? [])] } : {}),
    properties,
  };
}

export function rapidCoordLocations(r: CoordResult): Record<string, unknown>[] {
  return r.pins.map(pinLocation);
}

export function rapidStopFinderLocations(r: StopFinderResult): Record<string, unknown>[] {
  return r.locations.map((l) => {
    const stop = rapidStopIds(wireStopIds(l.stop));
    return {
      id: l.stop.id,
      isGlobalId: stop.isGlobalId,
      name: l.stop.name,
      disassembledName: l.stop.name,
      coord: [l.stop.lat, l.stop.lon],
      type: 'stop',
      matchQuality: l.matchQuality,
      isBest: l.isBest,
      productClasses: [...l.stop.motTypes],
      properties: { ...stop.properties, ...(l.distanceM === undefined ? {} : { distance: Math.round(l.distanceM) }) },
    };
  });
}
