/** ServingLines (XML_SERVINGLINES_REQUEST): lines through a stop (odv) or by public name (line). */
import { BadParameterError } from '../errors.js';
import type { Params } from '../params.js';
import type { Line } from '../types.js';
import type { World } from '../world.js';

export interface ServingLinesResult { readonly lines: Line[] }

const LINE_REQ_BITS = 2 | 4 | 8 | 16;

export function runServingLines(world: World, p: Params): ServingLinesResult {
  const mode = p.oneOf('mode', ['odv', 'line'] as const) ?? missing('mode', 'is required (odv or line)');
  const reqType = p.int('lineReqType', 0, LINE_REQ_BITS) ?? missing('lineReqType', 'is required (bitmask 2|4|8|16, 0 = all)');
  if ((reqType & ~LINE_REQ_BITS) !== 0) throw new BadParameterError('lineReqType', `unknown bits in ${reqType}`);
  const excluded = new Set<number>();
  for (const [mot, v] of p.indexed('exclMOT_')) {
    if (v !== '1' && v !== '0') throw new BadParameterError(`exclMOT_${mot}`, `expected 1 or 0, got "${v}"`);
    if (v === '1') excluded.add(mot);
  }
  let lines: Line[];
  if (mode === 'odv') {
    p.oneOf('type_sl', ['any', 'stop'] as const) ?? missing('type_sl', 'is required (any) in mode odv');
    const named = p.required('name_sl', 'is required (a stop id) in mode odv');
    lines = world.linesAtStop(world.findStop(named)?.id ?? named);
  } else {
    lines = world.linesByName(p.required('lineName', 'is required in mode line'));
  }
  // Every simulated line is a timetable line of every lineReqType kind, so the bitmask filters nothing.
  return { lines: lines.filter((l) => !excluded.has(l.mot)) };
}

function missing(name: string, detail: string): never {
  throw new BadParameterError(name, detail);
}
