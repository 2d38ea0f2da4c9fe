/**
 * JSON Schemas (draft-07, for ajv) of the rapidJSON answers of the five operations, written by us
 * from the facts of the interface maker's published schema set (field names, types, enums,
 * required fields and where it forbids other fields), as read in the public copy of Oeffis/Oeffis
 * (vrr_client/schema, commit 0f83c6a6). Only what efa-sync asks for is described: the COORD,
 * LOCATION_SUGGEST (StopFinder), SERVINGLINES, ADDINFO and OPAREA answers and their definitions.
 *
 * Two deliberate readings of the published set, both looser than its letter:
 * - operatingArea `sharingTypes` refers to the vehicleType enum (COMBUSTION, ELECTRIC, ...) there,
 *   while a sharingType enum (CLASSIC, FREEFLOATING, UNKNOWN) is defined and used nowhere: a slip;
 *   here the items are sharingType words.
 * - operatingArea `id` and `operator.id`, typed number there, also take text: ids are opaque to
 *   efa-sync (its simulated providers are named by words, and the tables of every dialect must
 *   compare). Everything else is as strict as the published set.
 */
type Schema = Record<string, unknown>;

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
const closed = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, additionalProperties: false, ...extra });
const open = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });
const words = (...values: string[]): Schema => ({ type: 'string', enum: values });

const slotCounts = open({ totalSlots: num, emptySlots: num, freeVehicles: num });
const grade = words('VERYGOOD', 'GOOD', 'NEUTRAL', 'BAD', 'VERYBAD', 'UNACCEPTABLE', 'UNDEFINED');
const address = closed({ address: str, housenumber: str, omc: num, placeId: num, place: str, postalCode: str, region: str, country: str });

const definitions: Record<string, Schema> = {
  dateTime: { type: 'string', pattern: '^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9]Z$' },
  timePeriod: closed({ from: ref('dateTime'), to: ref('dateTime') }),
  serverInfo: closed({ controllerVersion: str, serverID: str, virtDir: str, serverTime: str, calcTime: num }),
  systemMessage: closed({
    type: words('warning', 'error', 'message'),
    module: words('PT_KERNEL', 'IT_KERNEL', 'MAP_KERNEL', 'DISPATCHER', 'BROKER', 'PPROF', 'AHF', 'EFAPSCHED', 'PDA', 'STT', 'ROP', 'TTB', 'itp-monomodal', 'UNKNOWN'),
    code: num,
    text: str,
    subType: str,
  }),
  error: open({ message: str, versions: open({ controller: str, interfaceMax: str, interfaceMin: str }) }),
  // "latitude, longitude" as numbers, or an object of height and level.
  coord: arrayOf({ anyOf: [{ type: ['array', 'number'] }, closed({ z: num, n: num, nF: num, d: num })] }),
  productClass: { type: 'number', enum: Array.from({ length: 22 }, (_, i) => i) },
  slots: slotCounts,
  intervall: closed({ from: ref('dateTime'), to: ref('dateTime') }),
  vehicle: closed({
    id: str,
    vehType: words('BIKE', 'MOTORCYCLE', 'CAR', 'UNDEFINED'),
    bikeFuncClass: words('ROAD', 'TOURING', 'HYBRID', 'CROSS', 'UTILITY', 'FREIGHT', 'MOUNTAIN', 'RACING', 'BMX', 'CRUISER', 'MOTORIZED', 'UNDEFINED'),
    ebikeClass: words('PEDELEC', 'PEDELEC_S', 'POWER_ON_DEMAND_PEDAL_ASSIST', 'POWER_ON_DEMAND_ONLY', 'UNDEFINED'),
    motorcycleClass: words(
      'STANDARD', 'CRUISER', 'SPORTBIKE', 'TOURING', 'SPORTTOURING', 'DUALSPORT', 'SCOOTER', 'UNDERBONE', 'MOPED', 'OFFROAD_MOTOCROSS',
      'OFFROAD_ENDURO', 'OFFROAD_RALLYRAID', 'OFFROAD_TRAIL', 'OFFROAD_TRACKRACING', 'CABIN_FULLYENCLOSED', 'CABIN_SEMIENCLOSED', 'TRICYCLE', 'UNDEFINED',
    ),
    carClass: words('CITYCAR', 'SUPERMINI', 'SMALLFAMILYCAR', 'LARGEFAMILYCAR', 'EXECUTIVECAR', 'LUXURYCAR', 'SPORTCOUPES', 'MULTIPURPOSECARS', 'SPORTUTILITY', 'UNDEFINED'),
    capacity: num,
    vehModel: str,
    addr: str,
    pos: str,
    lastUpdate: ref('dateTime'),
    catId: str,
    catName: str,
    dLAndroid: str,
    dLIOS: str,
    dLWindows: str,
    phone: str,
    plate: str,
    engine: words('COMBUSTION', 'ELECTRIC', 'HYBRID', 'UNDEFINED'),
    charging: bool,
    fuelLevel: num,
    rangeKm: str,
    int: grade,
    ext: grade,
    gearshift: words('MANUAL', 'SEMI_MANUAL', 'AUTOMATIC', 'UNDEFINED'),
    availabilities: closed({ oOO: arrayOf(ref('intervall')), unavail: arrayOf(ref('intervall')), avail: arrayOf(ref('intervall')) }),
    coord: ref('coord'),
    providerId: num,
    providerName: str,
    operatingAreaId: str,
    operatingAreaName: str,
  }),
  station: closed({
    addr: str,
    pos: str,
    lastUpdate: ref('dateTime'),
    ...Object.fromEntries(
      ['car', 'carCombustion', 'carHybrid', 'carElectric', 'motorcycle', 'motorcycleCombustion', 'motorcycleHybrid', 'motorcycleElectric', 'bike', 'eBike', 'combined']
        .map((kind) => [`${kind}Slots`, ref('slots')]),
    ),
    stNum: str,
    oOS: bool,
    vehicles: arrayOf(ref('vehicle')),
    coord: ref('coord'),
    providerId: num,
    providerName: str,
    operatingAreaId: str,
    operatingAreaName: str,
    id: str,
    name: str,
  }),
  parkingDataSet: closed({
    freePlaces: num,
    occ: num,
    occLOS: num,
    occLevel: str,
    occTrend: num,
    dataSource: words('PROFILE', 'REALTIME', 'UNKNOWN'),
    measuredAt: ref('dateTime'),
    additionalInformations: arrayOf(str),
  }),
  parkingStaticInfo: closed({
    maxVehicleDimensions: closed({ height: num, length: num, weight: num, width: num }),
    maxParkingTime: num,
    operator: closed({ name: str, phone: str, address }),
    address,
    geometryObject: closed({
      type: words('Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'),
      geometries: { type: 'array' },
      coordinates: {},
      mapName: str,
    }),
    link: str,
    email: str,
    telephone: str,
    accessibility: words('ACCESSIBILITY_UNDEFINED', 'ACCESSIBILITY_RESTRICTED_ACCESS', 'ACCESSIBILITY_PUBLIC_ACCESS'),
    properties: { type: 'object' },
  }),
  parkingSpaceType: closed(
    {
      type: words(
        'BICYCLE', 'MOTORCYCLE', 'CAR', 'CAR_HANDICAPPED', 'CAR_FEMALE', 'CAR_CHARGING_STATION', 'CAMPING_VAN', 'BUS', 'TRUCK',
        'BICYCLE_SHELTER', 'BICYCLE_BOX', 'BICYCLE_CHARGING_STATION', 'CAR_FAMILY', 'UNKNOWN',
      ),
      capacity: num,
      freeSpaces: num,
    },
    { required: ['type'] },
  ),
  parkingTax: closed({ type: words('UNKNOWN', 'HOUR', 'DAY', 'MONTH'), currency: str, fare: num, languageStrings: { type: 'array' } }),
  location: {
    type: 'object',
    properties: {
      id: str,
      isGlobalId: bool,
      name: str,
      disassembledName: str,
      type: words('address', 'crossing', 'gis', 'locality', 'platform', 'poi', 'suburb', 'stop', 'street', 'poiHierarchy', 'sharing', 'parking', 'unknown'),
      streetName: str,
      buildingNumber: str,
      matchQuality: num,
      isBest: bool,
      productClasses: arrayOf(ref('productClass')),
      coord: ref('coord'),
      infos: arrayOf(ref('info')),
      parent: ref('location'),
      assignedStops: arrayOf(ref('assignedLocation')),
      niveau: num,
      properties: open({
        distance: num,
        occupancy: words('EMPTY', 'MANY_SEATS', 'FEW_SEATS', 'STANDING_ONLY', 'CRUSHED_STANDING', 'FULL', 'NOT_ACCEPTING_PASSENGERS', 'UNKNOWN'),
        coordInfoDetails: closed({
          type: words('PARKING', 'STATION', 'FREEFLOATER', 'UNKNOWN'),
          providerId: num,
          operatingAreaId: str,
          parkingDataSet: ref('parkingDataSet'),
          station: ref('station'),
          vehicleDetails: ref('vehicle'),
        }),
        areaGid: str,
        dataSet: ref('parkingDataSet'),
        parkingStaticInfo: ref('parkingStaticInfo'),
        parkingTax: ref('parkingTax'),
        parkingRealtimeInfo: ref('parkingDataSet'),
        parkingSpaces: arrayOf(ref('parkingSpaceType')),
        zone: str,
      }),
    },
  },
  assignedLocation: {
    type: 'object',
    allOf: [ref('location'), open({ assignedLocation: str, connectingMode: num, distance: num, duration: num })],
  },
  transportation: closed({
    allCoords: arrayOf(arrayOf(ref('coord'))),
    coords: { type: 'array' },
    description: str,
    destination: ref('location'),
    disassembledName: str,
    id: str,
    locationSequence: { type: 'array' },
    localitySequence: arrayOf(ref('location')),
    name: str,
    number: str,
    operator: open({ id: str, name: str, code: str }),
    origin: ref('location'),
    product: open({ id: num, iconId: num, name: str, class: num }),
    properties: open({
      trainName: str, trainType: str, isTTB: bool, isSTT: bool, isROP: bool, tripCode: num, validity: ref('timePeriod'), version: str, globalId: str,
      lineDisplay: words('LINE', 'TRAIN', 'UNKNOWN'),
    }),
    assignedStop: str,
    assignedStopId: str,
    index: str,
    trips: { type: 'array' },
  }),
  info: closed({
    type: str,
    providerCode: str,
    id: str,
    version: num,
    priority: str,
    blockingType: str,
    timestamps: closed({ creation: ref('dateTime'), lastModification: ref('dateTime'), availability: ref('timePeriod'), validity: arrayOf(ref('timePeriod')) }),
    urlText: str,
    url: str,
    content: str,
    subtitle: str,
    title: str,
    additionalText: str,
    image: str,
    affected: closed({ lines: arrayOf(ref('transportation')), stops: arrayOf(ref('location')), places: arrayOf(ref('location')), countys: { type: 'array' } }),
    properties: open({ htmlText: str, speechText: str, smsText: str, wapText: str, additionalLinks: { type: 'array' } }),
  }),
  position: { type: 'array', minItems: 2, items: [num, num], additionalItems: false },
  positionArray: arrayOf(ref('position')),
  lineString: { allOf: [ref('positionArray'), { type: 'array', minItems: 2 }] },
  linearRing: { allOf: [ref('positionArray'), { type: 'array', minItems: 4 }] },
  polygon: arrayOf(ref('linearRing')),
  geometry: {
    type: 'object',
    oneOf: [
      closed({ type: words('Point'), coordinates: ref('position') }),
      closed({ type: words('MultiPoint'), coordinates: ref('positionArray') }),
      closed({ type: words('LineString'), coordinates: ref('lineString') }),
      closed({ type: words('MultiLineString'), coordinates: arrayOf(ref('lineString')) }),
      closed({ type: words('Polygon'), coordinates: ref('polygon') }),
      closed({ type: words('MultiPolygon'), coordinates: arrayOf(ref('polygon')) }),
    ],
  },
  operatingArea: closed({
    type: words('station', 'freefloating', 'private', 'unknown'),
    product: words('car', 'motorcycle', 'bike', 'taxi', 'unknown'),
    operator: open({ id: { type: ['number', 'string'] }, name: str }),
    id: { type: ['number', 'string'] },
    name: str,
    properties: open({ defaultLanguage: str, countryCode: str, timeZone: str, url: str, urlMobile: str, androidApp: str, iosApp: str, windows: str, phone: str }),
    vehicleEngineTypes: arrayOf(words('COMBUSTION', 'ELECTRIC', 'HYBRID', 'UNKNOWN')),
    vehicleTypes: arrayOf(words('COMBUSTION', 'ELECTRIC', 'HYBRID', 'UNKNOWN')),
    sharingTypes: arrayOf(words('CLASSIC', 'FREEFLOATING', 'UNKNOWN')),
    operatingZone: ref('geometry'),
    coverageArea: ref('geometry'),
  }),
};

/** The header every answer of the published set shares; `version` is required in all but SERVINGLINES. */
const header = { serverInfo: ref('serverInfo'), systemMessages: arrayOf(ref('systemMessage')), version: str } as const;

const answer = (properties: Record<string, Schema>, required: string[] = ['version']): Schema => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  definitions,
  ...closed({ ...header, ...properties, properties: {} }),
  ...(required.length > 0 ? { required } : {}),
});

export const RAPID_SCHEMAS = {
  coordInfo: answer({ error: ref('error'), locations: arrayOf(ref('location')) }),
  stopFinder: answer({ error: ref('error'), locations: arrayOf(ref('location')) }),
  servingLines: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    definitions,
    ...closed({ ...header, lines: arrayOf(ref('transportation')) }),
  },
  addInfo: answer({
    error: ref('error'),
    timestamp: ref('dateTime'),
    infos: closed({
      current: arrayOf(ref('info')),
      historic: arrayOf(ref('info')),
      affected: closed({ places: arrayOf(ref('location')), lines: arrayOf(ref('transportation')), trains: arrayOf(closed({ name: str })), stops: arrayOf(ref('location')) }),
    }),
  }),
  opArea: answer({ operatingAreas: arrayOf(ref('operatingArea')) }),
} as const satisfies Record<string, Schema>;

export type RapidOperation = keyof typeof RAPID_SCHEMAS;
