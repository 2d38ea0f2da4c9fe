/**
 * rapidJSON `locations[]` for CoordInfo and StopFinder, shaped like the TfNSW and NVBW samples:
 * `coord` as [lat, lon], MOT ids as `productClasses`, a `parent` locality, extra fields under
 * `properties`. The pin type is written as the rapidJSON location type the client maps back.
 */
import type { CoordResult, PinOut } from '../../ops/coord.js';
import type { StopFinderResult } from '../../ops/stopfinder.js';
import type { PinType } from '../../types.js';
import { STOP_GLOBAL_ID, wireStopIds, type WireStopIds } from '../stop-ids.js';

/**
 * rapidJSON's kind per pin type, from the published schema's location.type enum; a BUS_POINT
 * search answers `platform` (TfNSW sample).
 */
const LOCATION_TYPES: Readonly<Record<PinType, string>> = {
  STOP: 'stop',
  BUS_POINT: 'platform',
  POI_POINT: 'poi',
  POI_AREA: 'poi',
  // The published schema's location.type has no gisPoint: a GIS object is `gis`.
  GIS_POINT: 'gis',
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

/** The published schema's vehicle.vehType and operatingArea.product have no scooter or taxi word. */
const VEH_TYPES: Readonly<Record<string, string>> = { BIKE: 'BIKE', CAR: 'CAR', TAXI: 'CAR', MOTORCYCLE: 'MOTORCYCLE' };
/** coordInfoDetails.type: a classic (station-based) vehicle stands at a station. */
const DETAIL_TYPES: Readonly<Record<string, string>> = { FREEFLOATER: 'FREEFLOATER', STATION: 'STATION', CLASSIC: 'STATION' };

const numberOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * `properties.coordInfoDetails` of the published schema for a sharing vehicle (type STATION or
 * FREEFLOATER, operatingAreaId, vehicleDetails = its `vehicle` definition) and for a parking object
 * with real-time data (type PARKING, parkingDataSet with dataSource REALTIME). The flat fields stay
 * beside it (the schema's properties are open): older readers take them from there. providerId is
 * a number in the schema; the simulated providers are named by words, so it is left out and the
 * provider is read off the SharingRefId of the location's id.
 */
function coordInfoDetails(pin: PinOut['pin'], extra: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  if (pin.type === 'PARKING') {
    const realtime = extra['realtime'];
    if (typeof realtime !== 'object' || realtime === null) return undefined;
    const free = numberOr((realtime as Record<string, unknown>)['free']);
    return free === undefined ? undefined : { type: 'PARKING', parkingDataSet: { freePlaces: free, dataSource: 'REALTIME' } };
  }
  // A station comes with its coordInfoDetails already (ops/stations.ts), copied from the extras.
  if (pin.type !== 'SHARING' || extra['coordInfoDetails'] !== undefined) return undefined;
  const kind = typeof extra['vehicleType'] === 'string' ? extra['vehicleType'] : '';
  const engine = typeof extra['engineType'] === 'string' ? extra['engineType'] : undefined;
  const areaId = typeof extra['opAreaId'] === 'string' ? extra['opAreaId'] : undefined;
  const level = numberOr(extra['chargePercent']) ?? numberOr(extra['fuelPercent']);
  const spec = extra['specification'];
  const seats = typeof spec === 'object' && spec !== null ? numberOr((spec as Record<string, unknown>)['seats']) : undefined;
  const vehicle: Record<string, unknown> = {
    ...(pin.id === undefined ? {} : { id: pin.id }),
    vehType: VEH_TYPES[kind] ?? 'UNDEFINED',
    ...(engine === undefined ? {} : { engine }),
    ...(level === undefined ? {} : { fuelLevel: level }),
    ...(seats === undefined ? {} : { capacity: seats }),
    ...(areaId === undefined ? {} : { operatingAreaId: areaId }),
  };
  const locationType = typeof extra['locationType'] === 'string' ? extra['locationType'] : '';
  return {
    type: DETAIL_TYPES[locationType] ?? 'UNKNOWN',
    ...(areaId === undefined ? {} : { operatingAreaId: areaId }),
    vehicleDetails: vehicle,
  };
}

function pinLocation({ pin, motTypes, distanceM, extra }: PinOut): Record<string, unknown> {
  const properties: Record<string, unknown> = { distance: Math.round(distanceM) };
  const drawClassType = DRAW_CLASS_TYPES[pin.type];
  if (drawClassType !== undefined) properties['POI_DRAW_CLASS_TYPE'] = drawClassType;
  for (const [k, v] of Object.entries(extra)) if (!RESERVED.has(k)) properties[k] = v;
  const details = coordInfoDetails(pin, extra);
  if (details !== undefined) properties['coordInfoDetails'] = details;
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
