/** The scheduler's options, checked: a bad one is a RangeError naming it. */
export class InvalidSchedulerOptionError extends RangeError {
  override readonly name = 'InvalidSchedulerOptionError';

  constructor(
    readonly option: string,
    value: unknown,
    expected: string,
  ) {
    super(`scheduler option ${option} must be ${expected}, got ${String(value)}`);
  }
}

export function requirePositive(option: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new InvalidSchedulerOptionError(option, value, 'a finite number > 0');
}

export function requireNonNegative(option: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new InvalidSchedulerOptionError(option, value, 'a finite number >= 0');
}

export function requireInteger(option: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new InvalidSchedulerOptionError(option, value, `an integer >= ${min}`);
}
