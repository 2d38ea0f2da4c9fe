import type { Dialect } from '../dialect.js';
import { ShapeMismatch } from '../parse/common.js';

/** Placeholder until the legacy profile is written: every parser refuses. */
const refuse = (): never => {
  throw new ShapeMismatch([], 'the legacy dialect is not implemented yet');
};

export const legacyDialect: Dialect = {
  name: 'legacy',
  extraParams: () => [],
  parse: { coordInfo: refuse, stopFinder: refuse, servingLines: refuse, addInfo: refuse, opArea: refuse },
  messages: () => [],
  detect: () => false,
};
