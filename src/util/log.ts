import { isSecretName, REDACTED, redactDeep, redactText } from './redact.js';
import { pino } from 'pino';
import { terminalText, terminalValue } from './terminal-text.js';
import { createRequire } from 'node:module';

/**
 * pino-pretty, loaded only where a log is written for people: its 30 modules were a tenth of every
 * CLI start, and a scheduler's run logs JSON. A synchronous require, since a logger is made synchronously.
 */
const require = createRequire(import.meta.url);
const prettyFactory = (): typeof import('pino-pretty').prettyFactory => (require('pino-pretty') as typeof import('pino-pretty')).prettyFactory;

/**
 * Logs go to stderr (stdout is for `--json` summaries and command output), through pino: one JSON
 * object per line for log collectors (`json`), or pino-pretty's single lines for people (`pretty`).
 * A progress bar shares the terminal with them through `LogOutput`, never the same line.
 */
export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];
/**
 * The thresholds a logger may be set to, most to least verbose (`--log-level`). `fatal` keeps only
 * the line that ends a failed command (written by the CLI's top-level logger whatever the level).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * Shows `text` as the status line below the log lines (a progress bar), or removes it
   * (`undefined`). Where the output is not a terminal there is no status line and this does nothing.
   */
  status?(text: string | undefined): void;
}


/** Values under secret-looking keys are replaced; URLs in strings lose their credentials. */
export function redactFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) out[k] = isSecretName(k) ? REDACTED : redactDeep(v);
  return out;
}

/** Strips credentials from URLs inside free text (error messages quote URLs). */
export function redactSecretsInText(text: string): string {
  return redactText(text);
}

/**
 * A pretty line's fields with their text escaped (terminalValue); an error's stack keeps its line
 * breaks (`--debug` shows it over several lines), each line escaped.
 */
function terminalFields(fields: LogFields): LogFields {
  const { err, ...rest } = fields;
  const out = terminalValue(rest) as LogFields;
  if (err === undefined) return out;
  const stack = typeof err === 'object' && err !== null ? (err as { stack?: unknown }).stack : undefined;
  out['err'] = typeof stack === 'string' ? { ...(terminalValue(err) as object), stack: stack.split('\n').map(terminalText).join('\n') } : terminalValue(err);
  return out;
}

type LogUpdate = ReturnType<typeof import('log-update').createLogUpdate>;

/** A stream as far as the terminal questions go: is it one, and how wide. */
export type OutputStream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };

/**
 * The stream that log lines and a transient status line (the progress bar) share. On a terminal
 * the status line stays below the log lines: log-update erases it before a log line is written
 * and it is drawn again right after, so a log line never lands in the middle of the bar. Elsewhere
 * (cron mail, journald, Kubernetes logs) there is no status line: only whole lines.
 */
export class LogOutput {
  readonly interactive: boolean;
  #frame: LogUpdate | undefined;
  #status: string | undefined;
  /** Settles once a status line can be drawn (log-update loaded), or at once where none ever is. */
  readonly ready: Promise<void>;

  constructor(readonly stream: OutputStream) {
    // A terminal of no width (a pseudo-terminal nobody sized, as `script` or some CI runners give)
    // would wrap the status line after every character: lines there, as on a pipe.
    this.interactive = stream.isTTY === true && stream.columns !== 0;
    // log-update only where a status line can be drawn: its string-width compiles Unicode property
    // regular expressions when loaded (~0.1 s of every start), and a scheduler's output is no terminal.
    // The status line waits for it; log lines never do.
    this.ready = !this.interactive
      ? Promise.resolve()
      : import('log-update').then(
          ({ createLogUpdate }) => {
            // The cursor stays visible: a run killed mid-bar must not leave the user's terminal without one.
            this.#frame = createLogUpdate(this.stream, { showCursor: true });
            if (this.#status !== undefined) this.#frame(this.#status);
          },
          () => undefined, // no status line, only log lines
        );
  }

  /** Writes one or more whole lines (the text ends with a line feed). */
  writeLines(text: string): void {
    if (this.#status === undefined || this.#frame === undefined) {
      this.stream.write(text);
      return;
    }
    this.#frame.persist(text.endsWith('\n') ? text.slice(0, -1) : text);
    this.#frame(this.#status);
  }

  setStatus(text: string | undefined): void {
    if (text === undefined) {
      if (this.#status !== undefined) this.#frame?.clear();
      this.#status = undefined;
      return;
    }
    if (!this.interactive) return;
    this.#status = text;
    this.#frame?.(text);
  }
}

/** Every logger of the process that writes to stderr shares one output, and so one status line. */
let stderrOutput: LogOutput | undefined;
export function stderrLogOutput(): LogOutput {
  stderrOutput ??= new LogOutput(process.stderr);
  return stderrOutput;
}

export interface LoggerOptions {
  /** Default: pretty on a terminal, json elsewhere. */
  readonly format?: LogFormat;
  readonly level?: LogLevel;
  /** Default: stderr. */
  readonly stream?: OutputStream;
  /** Instead of `stream`: an output shared with other loggers. */
  readonly output?: LogOutput;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const output = opts.output ?? (opts.stream === undefined || opts.stream === process.stderr ? stderrLogOutput() : new LogOutput(opts.stream));
  const format = opts.format ?? (output.interactive ? 'pretty' : 'json');
  const prettify =
    format === 'pretty'
      ? prettyFactory()({
          colorize: output.interactive && !process.env['NO_COLOR'],
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname',
          singleLine: true,
          errorLikeObjectKeys: ['err'],
        })
      : undefined;
  const destination = { write: (line: string): void => output.writeLines(prettify ? prettify(line) : line) };
  const logger = pino(
    {
      level: opts.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Fields arrive redacted and serialisable (an error's stack as { type, message, stack } text).
      serializers: { err: (value: unknown) => value },
    },
    destination,
  );
  const write = (level: Exclude<LogLevel, 'fatal'>, msg: string, fields: LogFields = {}): void => {
    if (!logger.isLevelEnabled(level)) return;
    const redacted = redactFields(fields);
    const text = redactSecretsInText(msg);
    // A pretty line is read on a terminal: upstream text in it is shown escaped (util/terminal-text.ts).
    // JSON lines escape control characters as JSON does, and a collector wants the text as it was.
    if (prettify) logger[level](terminalFields(redacted), terminalText(text));
    else logger[level](redacted, text);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    status: (text) => output.setStatus(text),
  };
}
