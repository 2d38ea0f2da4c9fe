/** Shapes of the simulated world. Coordinates are stored lon/lat; polygon rings use the API's [lat, lon]. */

/** [minLon, minLat, maxLon, maxLat] */
export type BBox = readonly [number, number, number, number];

/** Object types of efa-api.md plus the two kinds the API returns through other switches. */
export const OBJECT_TYPES = [
  'ANY', 'BUS_POINT', 'ENTRANCE', 'GIS_AREA', 'GIS_POINT', 'INFRASTRUCTURE', 'LINE', 'POI_AREA', 'POI_POINT', 'STOP', 'STREET',
] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** Pin types the world stores. PARKING only answers the parking filters; SHARING answers type ANY. */
export const PIN_TYPES = ['STOP', 'POI_POINT', 'POI_AREA', 'GIS_POINT', 'BUS_POINT', 'PARKING', 'SHARING'] as const;
export type PinType = (typeof PIN_TYPES)[number];

export type AttrValue = string | number | boolean | null;

/**
 * How a deployment numbers its stops. `global`: the stop id is the global id (IFOPT / DHID,
 * `de:08111:6008`). `local`: the stop id is a local number (`1000001`, as MVV) and the global id is
 * sent beside it, as real legacy and rapidJSON deployments do.
 */
export const STOP_ID_SCHEMES = ['global', 'local'] as const;
export type StopIdScheme = (typeof STOP_ID_SCHEMES)[number];
/** First local stop id of a world with local stop ids, unless the caller picks another. */
export const DEFAULT_LOCAL_ID_BASE = 1_000_000;

export interface Pin {
  /** Stable unique key inside the world: the id when the pin has one, else `pin:<n>`. */
  readonly key: string;
  readonly type: PinType;
  readonly id?: string;
  /** STOP only: the global id (IFOPT / DHID); equal to `id` where the world's stop ids are global. */
  readonly globalId?: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** Extra fields the API sends beside the documented ones. */
  readonly attrs: Readonly<Record<string, AttrValue>>;
  /** Stops only: MOT ids the stop has besides those of the lines serving it. */
  readonly motTypes?: readonly number[];
}

/** What a caller gives to add a pin; `key` defaults to `id`. */
export interface NewPin {
  readonly type: PinType;
  readonly id?: string;
  readonly key?: string;
  readonly globalId?: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  readonly motTypes?: readonly number[];
}

export interface Stop {
  /** The id the deployment uses in requests and answers (local or global, see StopIdScheme). */
  readonly id: string;
  /** The global id (IFOPT / DHID) where the world knows one. */
  readonly globalId?: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** Sorted means-of-transport ids. */
  readonly motTypes: readonly number[];
}

export interface Line {
  /** `network:diva:supplement:dirCode:project`, e.g. `vvs:10001: :H:j24`. */
  readonly id: string;
  readonly network: string;
  readonly diva: string;
  readonly supplement: string;
  readonly dirCode: string;
  readonly project: string;
  readonly name: string;
  readonly number: string;
  readonly mot: number;
  /** Destination text. */
  readonly direction: string;
  readonly operator: string;
}

export const NOTICE_TYPES = [
  'stopInfo', 'stopBlocking', 'lineInfo', 'lineBlocking', 'routeInfo', 'routeBlocking', 'generalInfo', 'bannerInfo',
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

export interface Notice {
  readonly id: string;
  readonly type: NoticeType;
  readonly title: string;
  readonly text: string;
  /** YYYY-MM-DD, inclusive. */
  readonly validFrom: string;
  readonly validTo: string;
  /** `network:diva:supplement:dirCode` of the affected lines. */
  readonly lines: readonly string[];
  readonly severity: string;
  readonly providerCode: string;
  readonly sourceSystem: string;
  /** YYYY-MM-DD the notice was published. */
  readonly publishedAt: string;
  /** Stop ids (the deployment's own, see Stop.id) named by stop notices. */
  readonly stops: readonly string[];
}

export type PublicationStatus = 'current' | 'history' | 'future';

/** A closed ring of [lat, lon] points, as the API sends it. */
export type LatLonRing = readonly (readonly [number, number])[];

export interface Area {
  readonly id: string;
  readonly name: string;
  readonly polygon: LatLonRing;
}

export type VehicleKind = 'BIKE' | 'CAR' | 'MINIVEHICLE' | 'MOTORCYCLE' | 'TAXI';

export interface Provider {
  readonly id: string;
  readonly name: string;
  readonly vehicleType: VehicleKind;
  readonly areas: readonly Area[];
}

/**
 * A station of station-based sharing: a fixed place where a provider's vehicles are rented and
 * returned. Keyed by provider and id (providers number their stations themselves).
 */
export interface SharingStation {
  readonly id: string;
  readonly providerId: string;
  /** The operating area it belongs to. */
  readonly areaId: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** Slots per vehicle kind, as the published schema names its `<kind>Slots` fields (bike, eBike, car). */
  readonly capacity: Readonly<Record<string, number>>;
  readonly outOfService: boolean;
  /** The number the provider shows at the station (`stNum`). */
  readonly number?: string;
  readonly address?: string;
}
