import { EfaParameterError } from '../../src/efa/errors.js';
import type { Params } from '../../src/efa/params.js';

/** Every value sent under `name`, in order. */
export function values(params: Params, name: string): (string | null)[] {
  return params.filter(([key]) => key === name).map(([, value]) => value);
}

export function names(params: Params): string[] {
  return params.map(([key]) => key);
}

/** What `fn` throws; fails the test when it throws nothing. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

export function parameterError(fn: () => unknown): EfaParameterError {
  const error = thrown(fn);
  if (error instanceof EfaParameterError) return error;
  throw error;
}
