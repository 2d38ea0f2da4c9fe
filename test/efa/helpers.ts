import { EfaParameterError } from '../../src/efa/errors.js';
import type { Params } from '../../src/efa/params.js';

/** Every value sent under `name`, in order. */
export function values(params: Params, name: string): (string | null)[] {
  return params.filter(([key]) => key === name).map(([, value]) => value);
}

export function names(params: Params): string[] {
  return params.map(([key]) => key);
}

export function parameterError(fn: () => unknown): EfaParameterError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EfaParameterError) return error;
    throw error;
  }
  throw new Error('expected an EfaParameterError');
}
