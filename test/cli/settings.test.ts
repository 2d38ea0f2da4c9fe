import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { ConfigError, DatabaseUnavailableError, ExitCode, errorText, exitCodeOf } from '../../src/errors.js';
import { LockedError } from '../../src/db/lock.js';
import { dropUnsetEnvironment, outputSettingsFromArgv } from '../../src/cli/common.js';

describe('environment variables behind options', () => {
  const program = (): Command => {
    const root = new Command('x');
    root
      .command('run')
      .addOption(new Option('--base-url <url>').env('EFA_BASE_URL'))
      .addOption(new Option('--debug').env('EFA_DEBUG'))
      .addOption(new Option('--db <url>').env('DATABASE_URL'));
    return root;
  };

  it('counts an empty or blank variable as unset, and 0/false/no/off as off for a flag', () => {
    const env: NodeJS.ProcessEnv = { EFA_BASE_URL: '', DATABASE_URL: '  ', EFA_DEBUG: 'false', OTHER: '' };
    dropUnsetEnvironment(program(), env);
    expect(env).toEqual({ OTHER: '' });
    const on: NodeJS.ProcessEnv = { EFA_BASE_URL: 'http://h/efa', EFA_DEBUG: '1' };
    dropUnsetEnvironment(program(), on);
    expect(on).toEqual({ EFA_BASE_URL: 'http://h/efa', EFA_DEBUG: '1' });
  });

  it('an option left out after that is unset, so the job file or the default applies', async () => {
    const env = process.env;
    process.env = { ...env, EFA_BASE_URL: '' };
    try {
      const root = program();
      let seen: unknown = 'not run';
      root.commands[0]?.action((opts: { baseUrl?: string }) => {
        seen = opts.baseUrl;
      });
      dropUnsetEnvironment(root);
      await root.parseAsync(['node', 'x', 'run']);
      expect(seen).toBeUndefined();
    } finally {
      process.env = env;
    }
  });

  it('reads the log format and --debug from the raw command line before commander has parsed it', () => {
    expect(outputSettingsFromArgv(['run', 'x', '--log-format', 'json'], {})).toMatchObject({ format: 'json', debug: false });
    expect(outputSettingsFromArgv(['run', 'x', '--log-format=pretty', '--debug'], {})).toMatchObject({ format: 'pretty', debug: true });
    expect(outputSettingsFromArgv(['run'], { EFA_LOG_FORMAT: 'json', EFA_DEBUG: '1' })).toMatchObject({ format: 'json', debug: true });
    expect(outputSettingsFromArgv(['run'], { EFA_LOG_FORMAT: 'json', EFA_DEBUG: '0' })).toMatchObject({ debug: false });
  });
});

describe('one error-to-text and one exit-code mapping', () => {
  it('maps the contract exit codes carried by named errors, anything else to 1', () => {
    expect(exitCodeOf(new ConfigError('bad', 'x'))).toBe(ExitCode.usage);
    expect(exitCodeOf(new LockedError('held'))).toBe(ExitCode.locked);
    // Lost during a run: exit 1, the next run resumes it; before any run was opened: 75, try again later.
    expect(exitCodeOf(new DatabaseUnavailableError('postgres://h/db', 'j', { cause: new Error('gone'), runId: '7' }))).toBe(ExitCode.failed);
    expect(exitCodeOf(new DatabaseUnavailableError('postgres://h/db', 'j', { cause: new Error('gone') }))).toBe(ExitCode.temporaryFailure);
    expect(exitCodeOf(new Error('plain'))).toBe(ExitCode.failed);
    expect(exitCodeOf(Object.assign(new Error('odd'), { exitCode: 77 }))).toBe(ExitCode.failed);
    expect(exitCodeOf(undefined)).toBe(ExitCode.failed);
  });

  it('says what an error with an empty message is: the parts of an AggregateError, else its code', () => {
    // What pg throws for a refused connection on both ::1 and 127.0.0.1.
    const refused = new AggregateError(
      [Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }), Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
      '',
    );
    expect(errorText(refused)).toBe('connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
    expect(errorText(Object.assign(new Error(''), { code: 'EPIPE' }))).toBe('EPIPE');
    expect(errorText(new Error('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND efa.example') }))).toBe('fetch failed: getaddrinfo ENOTFOUND efa.example');
    expect(errorText(new Error('tile 3 failed: HTTP 503', { cause: new Error('HTTP 503') }))).toBe('tile 3 failed: HTTP 503');
    expect(errorText('a string')).toBe('a string');
  });
});
