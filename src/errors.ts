/**
 * Errors that end a command with a specific exit code (contract section 2). Anything else that
 * escapes to the CLI is exit 1.
 */
export const ExitCode = {
  succeeded: 0,
  failed: 1,
  usage: 2,
  partial: 3,
  locked: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad usage, a bad job file or bad configuration: exit 2, with a message naming the field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly exitCode = ExitCode.usage;
  constructor(
    message: string,
    /** The offending field or option, dotted (`sweeps.coord.maxPerRequest`), when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** One line for logs and run records; messages of our named errors already say what and where. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && !error.message.includes(cause.message) ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/**
 * Errors that no retry and no other tile can fix (the deployment answers in a projected grid, a
 * bad configuration, a lost run): they end the run at once with their own exit code.
 */
export function isFatal(error: unknown): boolean {
  const code = (error as { exitCode?: unknown } | null)?.exitCode;
  return code === ExitCode.usage || (error instanceof Error && error.name === 'LeaseLostError');
}
