import { z } from 'zod';
import type { ServingLine } from '../../records.js';
import { parseEach, restOf, ShapeMismatchError, type Parsed } from '../common.js';
import { nonNegativeIntSchema } from '../fields.js';
import { lineIdOf } from '../legacy/serving-lines.js';
import { element, list, present, requestElement } from './values.js';

/**
 * xml: ServingLines' `itdServingLinesRequest/itdServingLines/itdServingLine`. The line element is
 * verified (the departure-monitor answers of VRR and VGN carry the same `itdServingLines` block:
 * `number`, `motType`, `direction`, `stateless`, `itdNoTrain@name`, `motDivaParams` with network,
 * line, supplement, direction, project); its envelope under itdServingLinesRequest is inferred.
 */
const wireLineSchema = z.looseObject({
  number: z.string(),
  motType: nonNegativeIntSchema,
  direction: z.string().optional(),
  name: z.string().optional(),
});

const KNOWN = ['number', 'motType', 'direction', 'name'] as const;

/** The line's name: its own `name` where sent, else the product (`itdNoTrain@name`) and number, as "U-Bahn U2". */
function nameOf(raw: Record<string, unknown>, number: string): string {
  const own = present(raw['name']);
  if (own !== undefined) return own;
  const product = present(element(raw['itdNoTrain'])['name']);
  return product === undefined ? number : `${product} ${number}`;
}

export function parseXmlServingLines(body: unknown): Parsed<ServingLine> {
  const request = requestElement(body, 'itdServingLinesRequest');
  const holder = request['itdServingLines'];
  if (holder === undefined) throw new ShapeMismatchError(['itdRequest', 'itdServingLinesRequest', 'itdServingLines'], 'missing');
  const items = list(element(holder)['itdServingLine']);
  return parseEach('servingLines', ['itdRequest', 'itdServingLinesRequest', 'itdServingLines', 'itdServingLine'], items, wireLineSchema, (wire, raw) => {
    const diva = element(raw['motDivaParams']);
    const text = (key: string): string | undefined => (typeof diva[key] === 'string' ? (diva[key] as string) : undefined);
    const id = lineIdOf({
      ...(text('network') === undefined ? {} : { network: text('network') }),
      ...(text('line') === undefined ? {} : { line: text('line') }),
      ...(text('supplement') === undefined ? {} : { supplement: text('supplement') }),
      ...(text('direction') === undefined ? {} : { dir: text('direction') }),
      ...(text('project') === undefined ? {} : { project: text('project') }),
      ...(typeof raw['stateless'] === 'string' ? { stateless: raw['stateless'] } : {}),
    });
    return {
      ...(id === undefined ? {} : { id }),
      name: nameOf(raw, wire.number),
      number: wire.number,
      mot: wire.motType,
      direction: wire.direction ?? '',
      attrs: restOf(raw, KNOWN),
    };
  });
}
