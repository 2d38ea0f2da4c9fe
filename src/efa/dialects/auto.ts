import type { Dialect } from '../dialect.js';
import { ShapeMismatchError } from '../parse/common.js';
import { jsonDialect } from './json.js';
import { legacyDialect } from './legacy.js';
import { KNOWN_DIALECTS as candidates } from './recognise.js';

export interface AutoDialect extends Dialect {
  /** The dialect the first answer was in, once there was one. */
  readonly chosen: Dialect | undefined;
}

/**
 * `auto`: asks like the legacy profile (outputFormat=JSON with coordOutputFormat, which every
 * deployment understands) and reads each answer in whichever dialect it is in, XML included (a
 * gateway that always answers in the native format); the first answer's dialect is remembered for
 * the run record and logged by the run.
 */
export function createAutoDialect(): AutoDialect {
  let chosen: Dialect | undefined;
  const pick = (body: unknown): Dialect => {
    const found = (chosen?.detect(body) ? chosen : undefined) ?? candidates.find((d) => d.detect(body));
    if (!found) throw new ShapeMismatchError([], 'the answer is in none of the known dialects (xml, json, legacy, rapidjson)');
    chosen ??= found;
    return found;
  };
  return {
    name: 'auto',
    get chosen() {
      return chosen;
    },
    extraParams: (operation) => legacyDialect.extraParams(operation),
    parse: {
      coordInfo: (body, context) => pick(body).parse.coordInfo(body, context),
      stopFinder: (body, context) => pick(body).parse.stopFinder(body, context),
      servingLines: (body, context) => pick(body).parse.servingLines(body, context),
      addInfo: (body, context) => pick(body).parse.addInfo(body, context),
      opArea: (body, context) => pick(body).parse.opArea(body, context),
    },
    messages: (body) => (candidates.find((d) => d.detect(body)) ?? jsonDialect).messages(body),
    detect: (body) => candidates.some((d) => d.detect(body)),
  };
}
