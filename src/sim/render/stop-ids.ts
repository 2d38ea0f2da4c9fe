/**
 * The ids a stop goes by on the wire. Real deployments number stops locally (MVV `1000001`) and
 * send the global id (IFOPT / DHID, `de:09162:1`) beside it; each dialect has its own place for the
 * second one. This decides, once for every renderer, which id is which.
 */

export interface WireStopIds {
  /** The id requests take and answers use: the world's own stop id. */
  readonly id: string;
  /** A numeric local id: the world's own where it numbers stops locally, else derived from the global id. */
  readonly local: string;
  /** The global id, where the world knows one. */
  readonly global: string | undefined;
  /** Whether `id` is the global id (rapidJSON `isGlobalId`); a stop without a known global id counts as one. */
  readonly idIsGlobal: boolean;
}

/**
 * The local (numeric) id legacy servers send beside the global one: de:08115:7 → 81150007, like
 * MVV's 1000001 beside de:09162:1. Ids of another form are their own local id.
 */
export function localStopId(globalId: string): string {
  const m = /^[a-z]{2}:(\d+):(\d+)$/i.exec(globalId);
  return m?.[1] !== undefined && m[2] !== undefined ? `${Number(m[1])}${m[2].padStart(4, '0')}` : globalId;
}

export function wireStopIds(stop: { readonly id: string; readonly globalId?: string | undefined }): WireStopIds {
  const idIsGlobal = stop.globalId === undefined || stop.globalId === stop.id;
  return { id: stop.id, local: idIsGlobal ? localStopId(stop.id) : stop.id, global: stop.globalId, idIsGlobal };
}

/** The name/value pair legacy pins carry the global id in, and the json dialect copies. */
export const STOP_GLOBAL_ID = 'STOP_GLOBAL_ID';
