/**
 * The five EFA operations and their fixed paths. Callers name an operation, never a path, so a
 * misspelt path such as `XML_COORDINFO_REQUEST` cannot be requested.
 */
export const OPERATIONS = ['coordInfo', 'stopFinder', 'servingLines', 'addInfo', 'opArea'] as const;

export type Operation = (typeof OPERATIONS)[number];

export const OPERATION_PATHS: Readonly<Record<Operation, string>> = Object.freeze({
  coordInfo: 'XML_COORD_REQUEST',
  stopFinder: 'XML_STOPFINDER_REQUEST',
  servingLines: 'XML_SERVINGLINES_REQUEST',
  addInfo: 'XML_ADDINFO_REQUEST',
  opArea: 'XML_OPAREA_REQUEST',
});

/** Gateways (e.g. Transport for NSW's `/v1/tp/coord`) expose the operations under other paths. */
export type PathOverrides = Partial<Record<Operation, string>>;

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value);
}
