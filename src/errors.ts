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
