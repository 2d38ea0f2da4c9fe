import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The entry point `npm run build` writes: what `npx efa-sync` runs once installed. */
export const builtCli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface BuiltCliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit, in milliseconds. */
  readonly ms: number;
}

/** Every variable the CLI reads, unset, so the machine's own environment does not leak into a test. */
export const cleanEnv: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined,
  EFA_BASE_URL: undefined,
  EFA_JSON: undefined,
  EFA_LOG_FORMAT: undefined,
  EFA_RPS: undefined,
  EFA_CONCURRENCY: undefined,
  EFA_DIALECT: undefined,
  EFA_METRICS_FILE: undefined,
  EFA_FULL: undefined,
  EFA_STATEMENT_TIMEOUT: undefined,
  EFA_DEBUG: undefined,
  EFA_VERBOSE: undefined,
  EFA_SYNC_FAILPOINT: undefined,
};

/** Spawns the built CLI (rebuild dist first) without waiting for it. */
export function spawnBuiltCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [builtCli, ...args], { cwd: root, env: { ...process.env, ...cleanEnv, ...env }, stdio: 'pipe' });
}

/**
 * Runs the built CLI to its end while `during` watches what it has written to stderr so far and may
 * signal it (a stop, a kill, a change to the upstream at the right moment).
 */
export async function runBuiltCliWhile(args: readonly string[], during: (stderr: () => string, child: ChildProcessWithoutNullStreams) => Promise<void>): Promise<BuiltCliResult> {
  const started = Date.now();
  const child = spawnBuiltCli(args);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await during(() => stderr, child);
  const code = await exited;
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** Runs the built CLI to its end. */
export function runBuiltCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<BuiltCliResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawnBuiltCli(args, env);
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The JSON log lines of a stderr (`--log-format json`). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
