import { efaJson, type Dialect } from './efa-json.js';
import { legacyJson } from './legacy-json.js';
import { rapidJson } from './rapid-json.js';
import { xmlRender } from './xml.js';

/**
 * The response dialects the simulator can speak. A simulated deployment speaks one of them,
 * whatever `outputFormat` (JSON, rapidJSON or XML) a request names, like a gateway that always answers
 * in its own format; so a client in `auto` mode can tell them apart from the first answer.
 */
export const SIM_DIALECTS = ['json', 'legacy', 'rapidjson', 'xml'] as const;
export type SimDialect = (typeof SIM_DIALECTS)[number];

export const renderers: Readonly<Record<SimDialect, Dialect>> = {
  json: efaJson,
  legacy: legacyJson,
  rapidjson: rapidJson,
  xml: xmlRender,
};

export type { Dialect } from './efa-json.js';
