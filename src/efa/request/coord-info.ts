import { z } from 'zod';
import { boxCorners, formatCoord } from '../format/coord.js';
import { ParamList, type Params } from '../params.js';
import { bboxSchema, coordSchema, parseOptions } from './common.js';
import {
  boxFilterSchema,
  circleFilterSchema,
  coordInfoCommonShape,
  requireParkObjInfo,
  writeCommon,
  writeFilterBlocks,
} from './coord-filters.js';

/** Objects around a centre; each filter block may carry its own radius. */
export const coordInfoCircleSchema = z
  .strictObject({
    coord: coordSchema,
    filters: z.array(circleFilterSchema).min(1),
    ...coordInfoCommonShape,
  })
  .superRefine(requireParkObjInfo);

/** Objects inside a box given as [minLon, minLat, maxLon, maxLat]. */
export const coordInfoBoxSchema = z
  .strictObject({
    bbox: bboxSchema,
    filters: z.array(boxFilterSchema).min(1),
    ...coordInfoCommonShape,
  })
  .superRefine(requireParkObjInfo);

export type CoordInfoCircleOptions = z.input<typeof coordInfoCircleSchema>;
export type CoordInfoBoxOptions = z.input<typeof coordInfoBoxSchema>;

export function buildCoordInfoCircle(input: CoordInfoCircleOptions): Params {
  const options = parseOptions(coordInfoCircleSchema, input, 'coordInfo');
  const list = new ParamList().add('coord', formatCoord(options.coord));
  writeFilterBlocks(list, options.filters);
  writeCommon(list, options);
  return list.toParams();
}

export function buildCoordInfoBox(input: CoordInfoBoxOptions): Params {
  const options = parseOptions(coordInfoBoxSchema, input, 'coordInfo');
  const corners = boxCorners(options.bbox);
  const list = new ParamList()
    .bare('boundingBox')
    .add('boundingBoxLU', corners.upperLeft)
    .add('boundingBoxRL', corners.lowerRight);
  writeFilterBlocks(list, options.filters);
  writeCommon(list, options);
  return list.toParams();
}
