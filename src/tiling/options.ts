import { InvalidTilingOptionError } from './errors.js';

export function checkPositiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new InvalidTilingOptionError(name, `must be a positive integer, got ${v}`);
  return v;
}

export function checkPositive(name: string, v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) throw new InvalidTilingOptionError(name, `must be a positive number, got ${v}`);
  return v;
}

export function checkFill(name: string, v: number): number {
  if (!(v > 0 && v <= 1)) throw new InvalidTilingOptionError(name, `must be in (0, 1], got ${v}`);
  return v;
}
