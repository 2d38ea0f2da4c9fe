import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI as a scheduler does, built (`dist/src/cli/main.js`), with the test's environment.
 * Global setup rebuilds dist when a source file is newer (test/global-setup.ts): a CLI spawned
 * through tsx cost ~0.6 s more per process, a few hundred times per suite.
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
  return spawnCli(['dist/src/cli/main.js'], args, env, timeoutMs);
}

/**
 * Runs the built CLI (`dist/src/cli/main.js`, what `npx efa-sync` and a scheduler run): a flag that
 * exists only in the library, not on the command line, fails here. `npm install` builds it.
 */
export function runBuiltCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
  return spawnCli(['dist/src/cli/main.js'], args, env, timeoutMs);
}

function spawnCli(entry: readonly string[], args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
