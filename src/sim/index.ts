/** The EFA simulator: public surface. */
export { startSimulator, type Simulator, type SimulatorOptions, type RequestLogEntry } from './server.js';
export { generateWorld, DEFAULT_REGION, type GenerateOptions } from './generate.js';
export { loadWorld } from './load/index.js';
export { parseFaultSpec, type FaultSpec } from './faults.js';
export { World } from './world.js';
export { changeWorld, type WorldChange } from './change.js';
export { BadParameterError, FaultSpecError, SimulatorOptionError, WorldLoadError, UnknownObjectError } from './errors.js';
export type { Truth, TruthOptions, TruthPin, TruthRegion } from './truth.js';
export { pinTypesFor } from './truth.js';
export { EARTH_RADIUS_M, haversineM } from './geo.js';
export { COORD_ORDERS, DEFAULT_RADIUS_M, type CoordOrder } from './ops/coord.js';
export { DEFAULT_OPAREA_RADIUS_M } from './ops/oparea.js';
export * from './types.js';
export { SIM_DIALECTS, type SimDialect } from './render/index.js';
export * from './moving.js';
