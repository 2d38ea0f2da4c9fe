import { isSecretName, REDACTED, redactDeep, redactText } from './redact.js';

/**
 * Logs go to stderr (stdout is for `--json` summaries and command output), either as plain
 * lines for people or as one JSON object per line for log collectors.
 */
export type LogFormat = 'pretty' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

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

export function createLogger(opts: { format?: LogFormat; level?: LogLevel; stream?: NodeJS.WritableStream } = {}): Logger {
  const stream = opts.stream ?? process.stderr;
  const format = opts.format ?? (process.stderr.isTTY ? 'pretty' : 'json');
  const min = order[opts.level ?? 'info'];
  const write = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (order[level] < min) return;
    const safe = redactFields(fields);
    const text = redactSecretsInText(msg);
    if (format === 'json') {
      stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: text, ...safe })}\n`);
      return;
    }
    const extra = Object.entries(safe)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    stream.write(`${level === 'info' ? '' : `${level.toUpperCase()} `}${text}${extra ? `  ${extra}` : ''}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
