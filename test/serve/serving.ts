import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { builtCli, cleanEnv } from '../helpers/built-cli.js';
import { migrate } from '../../src/db/migrate.js';
import { openDb } from '../../src/db/index.js';

/** `efa-sync serve` as a user starts it (the built CLI), on a free port; resolves once it prints the QGIS line. */
export interface Serving {
  readonly child: ChildProcess;
  readonly port: number;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string | null>;
}

export async function serveBuilt(dataDir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const child = spawn(process.execPath, [builtCli, 'serve', '--db', `pglite:${dataDir}`, '--port', '0', ...args], {
    env: { ...process.env, ...cleanEnv, EFA_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | string | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const deadline = Date.now() + 240_000;
  while (!/QGIS:/.test(stdout) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const port = Number(/ on [^ ]+:(\d+);/.exec(stdout)?.[1] ?? NaN);
  if (!Number.isFinite(port)) {
    child.kill('SIGKILL');
    throw new Error(`serve did not start: ${stdout}\n${stderr}`);
  }
  return { child, port, stderr: () => stderr, exited };
}

/** A typed frontend message. */
export function frontend(type: string | number, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = typeof type === 'number' ? type : type.charCodeAt(0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export function startupPacket(params: Record<string, string>): Buffer {
  const parts = Object.entries(params).flatMap(([k, v]) => [Buffer.from(`${k}\0`), Buffer.from(`${v}\0`)]);
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), ...parts, Buffer.from([0])]);
  const head = Buffer.alloc(4);
  head.writeInt32BE(body.length + 4);
  return Buffer.concat([head, body]);
}

/** A raw connection that records what the server sends and whether it closed. */
export interface RawClient {
  readonly socket: Socket;
  received(): Buffer;
  readonly closed: Promise<void>;
  /** Waits until `test` holds for what was received, or the socket closed, or `ms` passed; returns whether it held. */
  until(test: (got: Buffer) => boolean, ms: number): Promise<boolean>;
}

export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  let got = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => got,
    closed,
    until: async (test, ms) => {
      const deadline = Date.now() + ms;
      while (!test(got) && !socket.destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      return test(got);
    },
  };
}

/** True once the bytes hold a ReadyForQuery message (the end of a login or of a query's answer). */
export const hasReady = (got: Buffer): boolean => got.includes(Buffer.from([0x5a, 0, 0, 0, 5]));

/** The SQLSTATE of the first ErrorResponse in the bytes. */
export function sqlState(got: Buffer): string | undefined {
  const at = got.indexOf(Buffer.from('\0C'));
  return at < 0 ? undefined : got.subarray(at + 2, at + 7).toString('latin1');
}

/** A new embedded warehouse at `dataDir` with the migrations alone (schema efa, the serve roles' grants): no harvest needed to serve it. */
export async function migratedWarehouse(dataDir: string): Promise<void> {
  const db = await openDb(`pglite:${dataDir}`);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
}
