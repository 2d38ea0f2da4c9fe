import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { checkFrontend } from './frontend.js';
import { checkEncoding } from './guard.js';
import { CANCEL_REQUEST, cstring, errorResponse, FrameReader, GSSENC_REQUEST, int32, message, parameterStatus, PROTOCOL_3, readCString, readyForQuery, SSL_REQUEST } from './protocol.js';
import { ScramExchange } from './scram.js';
import type { SessionScheduler } from './session.js';
import { Spool } from './spool.js';

/**
 * The front door of `serve`: the PostgreSQL protocol as far as a client sees it (startup, SCRAM,
 * cancel requests), every message checked (`frontend.ts`) before the shared session gets it
 * (`session.ts`). Limits, because any socket may be hostile:
 *
 * - before authentication a message may be 10 kB (the startup packet, the password exchange), and
 *   startup plus password must be done within `authTimeoutMs`;
 * - after it, a message may be `maxMessageBytes`; a longer one is refused (FATAL 54000);
 * - `maxConnections` sockets at most, counting those still logging in; one more is told
 *   "too many connections" (FATAL 53300) rather than dropped silently.
 *
 * pg-gateway 0.2.4 was measured for this and not used (docs/analysts/serve.md): no SCRAM, a 1 GB message
 * buffered before authentication, unknown message types left unanswered, no cancel requests.
 */

const MECHANISM = 'SCRAM-SHA-256';
export const PRE_AUTH_MESSAGE_BYTES = 10_000;

/** Startup settings passed on; anything else a client sends at startup (`options`, …) is dropped. */
const STARTUP_SETTINGS = new Map(
  ['application_name', 'client_encoding', 'DateStyle', 'TimeZone', 'extra_float_digits', 'IntervalStyle'].map((name) => [name.toLowerCase(), name] as const),
);

export interface WireProxyOptions {
  readonly host: string;
  readonly port: number;
  readonly scheduler: SessionScheduler;
  /** What every client is told at startup (server_version, …), the client's own settings on top. */
  readonly serverSettings: ReadonlyMap<string, string>;
  /** Required of every client when set (SCRAM-SHA-256). */
  readonly password?: string | undefined;
  /** `--write`: row changes pass the statement check too. */
  readonly write: boolean;
  /** False only in tests that show privilege alone holds: statements go to the database unchecked. */
  readonly guard?: boolean;
  readonly maxConnections: number;
  readonly authTimeoutMs: number;
  readonly maxMessageBytes: number;
  /** Told about each refused statement and failed password (for the log). */
  readonly onRefused?: (what: string, remote: string) => void;
}

export interface WireProxy {
  readonly port: number;
  stop(): Promise<void>;
}

interface Key {
  readonly id: number;
  readonly secret: number;
}

function handle(client: Socket, id: number, options: WireProxyOptions, keys: Map<number, Key>, release: () => void): void {
  const remote = `${client.remoteAddress ?? '?'}:${client.remotePort ?? '?'}`;
  const frames = new FrameReader();
  const key: Key = { id, secret: randomBytes(4).readInt32BE(0) };
  const prefix = `efa${id}_`;
  let phase: 'startup' | 'sasl-first' | 'sasl-final' | 'ready' = 'startup';
  let user = 'postgres';
  let settings: [string, string][] = [];
  const scram = options.password === undefined ? undefined : new ScramExchange(options.password);
  const spool = new Spool(client);
  const authTimer = setTimeout(() => fail('08006', `efa-sync serve: authentication not completed within ${options.authTimeoutMs / 1000} s`), options.authTimeoutMs);
  authTimer.unref();

  const session = {
    id,
    prefix,
    remote,
    get settings() {
      return settings;
    },
    send: (bytes: Buffer) => spool.write(bytes),
    fatal: (code: string, text: string) => fail(code, text),
  };

  function fail(code: string, text: string): void {
    if (!client.destroyed) client.end(errorResponse('FATAL', code, text));
    // A client that does not read its error is not waited for.
    setTimeout(() => client.destroy(), 1000).unref();
    close();
  }

  function close(): void {
    // The slot is free as soon as the server has given up on the connection, not when the client has read its error.
    release();
    clearTimeout(authTimer);
    frames.clear();
    spool.close();
    phase = 'startup';
    keys.delete(id);
    options.scheduler.remove(id);
  }

  const loggedIn = (): void => {
    clearTimeout(authTimer);
    phase = 'ready';
    keys.set(id, key);
    options.scheduler.add(session);
    const shown = new Map(options.serverSettings);
    for (const [name, value] of settings) shown.set(name, value);
    const out: Buffer[] = [message('R', int32(0))];
    for (const [name, value] of shown) out.push(parameterStatus(name, value));
    out.push(message('K', Buffer.concat([int32(key.id), int32(key.secret)])), readyForQuery('I'));
    client.write(Buffer.concat(out));
  };

  const onStartup = (body: Buffer): void => {
    const params = new Map<string, string>();
    for (let at = 4; at < body.length; ) {
      const name = readCString(body, at);
      if (name === undefined || name[0] === '') break;
      const value = readCString(body, name[1]);
      if (value === undefined) return fail('08P01', 'efa-sync serve: invalid startup packet');
      params.set(name[0], value[0]);
      at = value[1];
    }
    user = params.get('user') ?? 'postgres';
    settings = [];
    for (const [name, value] of params) {
      const known = STARTUP_SETTINGS.get(name.toLowerCase());
      if (known !== undefined) settings.push([known, value]);
    }
    const encoding = settings.find(([name]) => name === 'client_encoding');
    if (encoding !== undefined) {
      const refused = checkEncoding(encoding[1]);
      if (refused !== undefined) return fail('0A000', `efa-sync serve: ${refused}; set PGCLIENTENCODING=UTF8 (or the client's encoding setting)`);
    }
    if (scram === undefined) return loggedIn();
    phase = 'sasl-first';
    client.write(message('R', Buffer.concat([int32(10), cstring(MECHANISM), Buffer.from([0])])));
  };

  const badPassword = (): void => {
    options.onRefused?.(`password authentication failed for user "${user}"`, remote);
    fail('28P01', `password authentication failed for user "${user}"`);
  };

  const onPassword = (type: string, body: Buffer): void => {
    if (type !== 'p' || scram === undefined) return fail('08P01', 'efa-sync serve: expected a password message');
    if (phase === 'sasl-first') {
      const mechanism = readCString(body, 0);
      if (mechanism === undefined || mechanism[0] !== MECHANISM || mechanism[1] + 4 > body.length) return badPassword();
      const reply = scram.first(body.subarray(mechanism[1] + 4).toString('utf8'));
      if (reply === undefined) return badPassword();
      phase = 'sasl-final';
      client.write(message('R', Buffer.concat([int32(11), Buffer.from(reply, 'utf8')])));
      return;
    }
    const reply = scram.final(body.toString('utf8'));
    if (reply === undefined) return badPassword();
    client.write(message('R', Buffer.concat([int32(12), Buffer.from(reply, 'utf8')])));
    loggedIn();
  };

  const onMessage = (type: string, body: Buffer): void => {
    const verdict = checkFrontend(type, body, { prefix, write: options.write, guard: options.guard !== false, refused: (why) => options.onRefused?.(why, remote) });
    if (verdict.kind === 'relay') options.scheduler.submit(session, verdict.bytes);
    else if (verdict.kind === 'terminate') {
      client.end();
      close();
    } else if (verdict.kind === 'fatal') fail(verdict.code, verdict.text);
  };

  /** One startup-phase packet (no type byte): SSL/GSS requests, a cancel request, the startup message. */
  const onUntyped = (): boolean => {
    const head = frames.peek(8);
    if (head === undefined) return false;
    const length = head.readInt32BE(0);
    if (length < 8 || length > PRE_AUTH_MESSAGE_BYTES) {
      fail('08P01', 'efa-sync serve: invalid startup packet length');
      return false;
    }
    if (frames.size < length) return false;
    const body = frames.take(length).subarray(4);
    const code = body.readInt32BE(0);
    // No TLS here: the client goes on in the clear (sslmode=prefer) or gives up (require).
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) client.write('N');
    else if (code === CANCEL_REQUEST) {
      const target = body.length >= 12 ? keys.get(body.readInt32BE(4)) : undefined;
      if (target !== undefined && target.secret === body.readInt32BE(8)) options.scheduler.cancel(target.id);
      client.end();
      close();
      return false;
    } else if (code === PROTOCOL_3) onStartup(body);
    else {
      fail('0A000', `efa-sync serve: unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: protocol 3.0 is served`);
      return false;
    }
    return true;
  };

  client.on('data', (chunk: Buffer) => {
    frames.push(chunk);
    while (!client.destroyed && !client.writableEnded) {
      if (phase === 'startup') {
        if (!onUntyped()) return;
        continue;
      }
      const head = frames.peek(5);
      if (head === undefined) return;
      const length = head.readInt32BE(1);
      const cap = phase === 'ready' ? options.maxMessageBytes : PRE_AUTH_MESSAGE_BYTES;
      if (length < 4) return fail('08P01', 'efa-sync serve: invalid message length');
      if (length > cap) {
        return fail(
          '54000',
          phase === 'ready'
            ? `efa-sync serve: a message of ${length} bytes is over the limit of ${cap} (serve --max-message-bytes)`
            : `efa-sync serve: a message of ${length} bytes before authentication is over the limit of ${cap}`,
        );
      }
      if (frames.size < length + 1) return;
      const whole = frames.take(length + 1);
      const type = String.fromCharCode(whole[0] ?? 0);
      if (phase === 'ready') onMessage(type, whole.subarray(5));
      else onPassword(type, whole.subarray(5));
    }
  });
  client.on('error', () => client.destroy());
  client.on('close', close);
}

export async function startWireProxy(options: WireProxyOptions): Promise<WireProxy> {
  const sockets = new Set<Socket>();
  /** Connections that hold a slot: the open ones the server has not given up on. */
  const counted = new Set<Socket>();
  const keys = new Map<number, Key>();
  let nextId = 1;
  const server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    if (counted.size >= options.maxConnections) {
      socket.end(errorResponse('FATAL', '53300', `sorry, too many clients already: efa-sync serve takes ${options.maxConnections} connections at a time (those still logging in count too)`));
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    sockets.add(socket);
    const release = (): void => void counted.delete(socket);
    counted.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      release();
    });
    socket.setNoDelay(true);
    handle(socket, nextId++, options, keys, release);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
