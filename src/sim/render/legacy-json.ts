import type { Dialect } from './efa-json.js';

/** Legacy EFA JSON (`outputFormat=JSON` of real servers). Not written yet. */
export const legacyJson: Dialect = notYet('legacy');

function notYet(name: string): Dialect {
  const fail = (): never => {
    throw new Error(`the simulator does not speak the ${name} dialect yet`);
  };
  return { coord: fail, stopFinder: fail, servingLines: fail, addInfo: fail, opArea: fail, error: (status, message) => ({ error: { status, message } }) };
}
