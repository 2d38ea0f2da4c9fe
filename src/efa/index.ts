/** Public API of the typed EFA client. */
export { createEfaClient, type EfaClient, type EfaClientOptions, type EfaResult } from './client.js';
export { OPERATIONS, OPERATION_PATHS, isOperation, type Operation, type PathOverrides } from './operations.js';
export { ImplausibleCoordinatesError, plausibleLonLat } from './parse/common.js';
export { RecordProblemError, ShapeMismatchError, type Dialect, type DialectParsers, type ParseContext, type Parsed } from './dialect.js';
export { resolveDuplicateNotices, resolveDuplicatePins, isDuplicateReject } from './parse/duplicates.js';
export { MAX_FIELD_CHARS, MAX_RECORD_DEPTH } from './parse/limits.js';
export { globalIdOf, hasGlobalIdForm } from './parse/global-id.js';
export { jsonDialect } from './dialects/json.js';
export {
  EfaCoordinateFormatError,
  EfaDialectMismatchError,
  EfaError,
  EfaHtmlPageError,
  EfaHttpStatusError,
  EfaNotJsonError,
  EfaXmlRefusedError,
  EfaUnreadFormatError,
  EfaParameterError,
  EfaShapeError,
} from './errors.js';
export * from './records.js';
export { toQueryString, toSearchParams, type Param, type Params } from './params.js';
export { COORD_SYSTEM, formatCoord, formatCoordRadius, boxCorners, type LonLat } from './format/coord.js';
export { formatAddInfoDate, formatDeadline, type CalendarDate } from './format/date.js';
export { bitmask, joinColon, motBitmask } from './format/lists.js';
export { parseRetryAfter } from './retry-after.js';
export { excerpt } from './excerpt.js';
export { buildCoordInfoParking, type CoordInfoParkingOptions } from './request/coord-parking.js';
export { buildCoordInfoBox, buildCoordInfoCircle, type CoordInfoBoxOptions, type CoordInfoCircleOptions } from './request/coord-info.js';
export { OBJECT_TYPES, PARKING_OBJECT_TYPES, type ObjectType, type ParkingObjectType } from './request/coord-filters.js';
export { buildVehicleDetail, type VehicleDetailOptions } from './request/vehicle-detail.js';
export { buildStopFinder, RANKING_METHODS, type StopFinderOptions } from './request/stop-finder.js';
export {
  buildServingLinesAtStop,
  buildServingLinesByName,
  LINE_REQ_TYPES,
  type LineReqType,
  type ServingLinesAtStopOptions,
  type ServingLinesByNameOptions,
} from './request/serving-lines.js';
export { buildAddInfo, INFO_TYPES, type AddInfoOptions, type InfoType } from './request/add-info.js';
export { buildOpArea, type OpAreaOptions } from './request/op-area.js';
