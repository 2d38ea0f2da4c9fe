import { spawn } from 'node:child_process';
import { builtCli, cleanEnv } from '../helpers/built-cli.js';

export interface CliInResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built CLI started in `cwd` (a fresh folder, as a new user's shell), with none of the machine's EFA_ variables. */
export function cliIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliInResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd, env: { ...process.env, ...cleanEnv, EFA_LOG_FORMAT: 'json', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
