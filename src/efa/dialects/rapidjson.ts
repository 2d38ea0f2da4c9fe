import type { Dialect } from '../dialect.js';
import { ShapeMismatch } from '../parse/common.js';

/** Placeholder until the rapidjson profile is written: every parser refuses. */
const refuse = (): never => {
  throw new ShapeMismatch([], 'the rapidjson dialect is not implemented yet');
};

export const rapidJsonDialect: Dialect = {
  name: 'rapidjson',
  extraParams: () => [],
  parse: { coordInfo: refuse, stopFinder: refuse, servingLines: refuse, addInfo: refuse, opArea: refuse },
  messages: () => [],
  detect: () => false,
};
