import { z } from 'zod';
import type { Pin } from '../../records.js';
import { parseEach, RecordProblemError, restOf, type Parsed } from '../common.js';
import { kindSchema, motTypesSchema } from '../fields.js';
import { globalIdOf } from '../global-id.js';
import { pathCoord, scaleOfMapName, type Scale } from './coords.js';
import { descend, element, genAttrs, list, present, requestElement } from './values.js';

/**
 * xml: CoordInfo's `itdCoordInfoRequest/itdCoordInfo/coordInfoItemList/coordInfoItem`, each with
 * `type`, `id`, `name` attributes, its position in `itdPathCoordinates` and its attributes in
 * `genAttrList` (STOP_GLOBAL_ID, STOPPOINT_GLOBAL_ID, STOP_MEANS_LIST, ...). Verified on the VRR
 * (2016, ISO-8859-1, micro-degrees, BUS_POINT) and STA (2026, UTF-8, decimal degrees, STOP) answers.
 */
const wireItemSchema = z.looseObject({
  type: kindSchema,
  id: z.string().optional(),
  name: z.string(),
  itdPathCoordinates: z.unknown(),
});

const KNOWN = ['type', 'id', 'name', 'itdPathCoordinates'] as const;

/** The MOT list as the legacy pins read it: STOP_MEANS_LIST, else STOP_MAJOR_MEANS; sorted, unique. */
function motTypesOf(attrs: ReadonlyMap<string, string>): number[] {
  const value = attrs.get('STOP_MEANS_LIST') ?? attrs.get('STOP_MAJOR_MEANS');
  // Absent or blank is no MOT, as the schema reads it; most items (every POI) take this way.
  if (value === undefined || value.trim() === '') return [];
  const parsed = motTypesSchema.safeParse(value);
  if (!parsed.success) throw new RecordProblemError(['genAttrList'], parsed.error.issues[0]?.message ?? 'bad MOT list');
  return [...new Set(parsed.data)].sort((a, b) => a - b);
}

/** What the answer's echo of the request says its positions are in (see coords.ts). */
function scaleOfAnswer(coordInfo: Record<string, unknown>): Scale {
  const echoed = element(element(coordInfo['coordInfoRequest'])['itdCoord'])['mapName'];
  return (typeof echoed === 'string' ? scaleOfMapName(echoed) : undefined) ?? 'degrees';
}

export function parseXmlPins(body: unknown): Parsed<Pin> {
  const at = ['itdRequest', 'itdCoordInfoRequest'];
  const coordInfo = descend(requestElement(body, 'itdCoordInfoRequest'), at, ['itdCoordInfo']);
  const scale = scaleOfAnswer(coordInfo);
  const items = list(element(coordInfo['coordInfoItemList'])['coordInfoItem']);
  const listPath = [...at, 'itdCoordInfo', 'coordInfoItemList', 'coordInfoItem'];
  return parseEach('coordInfo', listPath, items, wireItemSchema, (wire, raw, path) => {
    const attributes = genAttrs(raw);
    const localId = present(wire.id, ['', '-1']);
    // A stop point's own global id is STOPPOINT_GLOBAL_ID (as in the json dialect); the stop's, STOP_GLOBAL_ID.
    const globalId = globalIdOf({ id: localId, attributes, stopPoint: wire.type === 'BUS_POINT' });
    // The global id keys the pin, as legacy JSON does for the same deployment; the local id stays in attrs.
    const id = globalId ?? localId;
    return {
      type: wire.type,
      ...(id === undefined ? {} : { id }),
      name: wire.name,
      coord: pathCoord(wire.itdPathCoordinates, scale, [...path, 'itdPathCoordinates']),
      motTypes: motTypesOf(attributes),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: { ...restOf(raw, KNOWN), ...(localId !== undefined && localId !== id ? { localId } : {}) },
    };
  });
}
