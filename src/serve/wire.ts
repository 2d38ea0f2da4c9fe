import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { Admission, refuseSocket, type Admitted } from './admission.js';
import { checkFrontend, type FrontendVerdict, type StatementCheck } from './frontend.js';
import { GuardPool } from './guard-pool.js';
import { CANCEL_REQUEST, cstring, errorResponse, FrameReader, GSSENC_REQUEST, int32, message, parameterStatus, PROTOCOL_3, readCString, readyForQuery, SSL_REQUEST } from './protocol.js';
import { ScramExchange } from './scram.js';
import type { SessionScheduler } from './session.js';
import { Spool } from './spool.js';
import { startupSettings } from './startup.js';

/**
 * The front door of `serve`: the PostgreSQL protocol as far as a client sees it (startup, SCRAM,
 * cancel requests), every message checked (`frontend.ts`) before the shared session gets it
 * (`session.ts`). Limits, because any socket may be hostile:
 *
 * - before authentication a message may be 10 kB (the startup packet, the password exchange), and
 *   startup plus password must be done within `authTimeoutMs`;
 * - after it, a message may be `maxMessageBytes`; a longer one is refused (FATAL 54000);
 * - `maxConnections` sockets at most, counting those still logging in, and `maxConnectionsPerAddress`
 *   from one address (admission.ts); one more is told "too many connections" (FATAL 53300);
 * - a client's messages waiting for the session are bounded (QUEUED_INPUT_BYTES): beyond it the
 *   socket is not read, as PostgreSQL does not read a busy client's socket; its unread answers are
 *   bounded by `maxSpoolBytes` (spool.ts);
 * - a statement is parsed (the statement check) on a thread of its own (guard-pool.ts), within a
 *   deadline, so a client pipelining hostile statements stalls no other client's login or answer;
 *   a client's next message is read once its statement's verdict is in, so its order holds.
 *
 * pg-gateway 0.2.4 was measured for this and not used (docs/analysts/serve.md): no SCRAM, a 1 GB message
 * buffered before authentication, unknown message types left unanswered, no cancel requests.
 */

const MECHANISM = 'SCRAM-SHA-256';
export const PRE_AUTH_MESSAGE_BYTES = 10_000;

/** A client's messages waiting for the session beyond which its socket is not read. */
export const QUEUED_INPUT_BYTES = 16 * 1024 * 1024;

export interface WireProxyOptions {
  readonly host: string;
  readonly port: number;
  readonly scheduler: SessionScheduler;
  /** What every client is told at startup (server_version, …), the client's own settings on top. */
  readonly serverSettings: ReadonlyMap<string, string>;
  /** Every setting name the engine has, lower case: a startup parameter outside them is refused (42704). */
  readonly knownSettings: ReadonlySet<string>;
  /** Required of every client when set (SCRAM-SHA-256). */
  readonly password?: string | undefined;
  /** `--write`: row changes pass the statement check too. */
  readonly write: boolean;
  /** False only in tests that show privilege alone holds: statements go to the database unchecked. */
  readonly guard?: boolean;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  /** A logged-in client idle this long is let go when every slot is taken and another connects; 0 = never. */
  readonly idleSessionMs: number;
  /** A client's unread answers beyond this end its connection (53400). */
  readonly maxSpoolBytes: number;
  readonly authTimeoutMs: number;
  readonly maxMessageBytes: number;
  /** Told about each refused statement and failed password (for the log). */
  readonly onRefused?: (what: string, remote: string) => void;
  /** Told about clients let go (idle, unread answers). */
  readonly onProblem?: (what: string) => void;
}

export interface WireProxy {
  readonly port: number;
  stop(): Promise<void>;
}

interface Key {
  readonly id: number;
  readonly secret: number;
}

function handle(client: Socket, id: number, options: WireProxyOptions, check: StatementCheck | undefined, keys: Map<number, Key>, admitted: Admitted, release: () => void): void {
  const remote = `${client.remoteAddress ?? '?'}:${client.remotePort ?? '?'}`;
  const frames = new FrameReader();
  const key: Key = { id, secret: randomBytes(4).readInt32BE(0) };
  const prefix = `efa${id}_`;
  let phase: 'startup' | 'sasl-first' | 'sasl-final' | 'ready' = 'startup';
  let user = 'postgres';
  let settings: readonly (readonly [string, string])[] = [];
  let reported: readonly (readonly [string, string])[] = [];
  const scram = options.password === undefined ? undefined : new ScramExchange(options.password);
  const spool = new Spool(client, options.maxSpoolBytes, () => {
    options.onProblem?.(`client ${id} (${remote}) left more than ${options.maxSpoolBytes} bytes of answers unread: disconnected`);
    fail('53400', `efa-sync serve: more than ${options.maxSpoolBytes} bytes of answers left unread (serve --max-spool); the connection is closed`);
  });
  const authTimer = setTimeout(() => fail('08006', `efa-sync serve: authentication not completed within ${options.authTimeoutMs / 1000} s`), options.authTimeoutMs);
  authTimer.unref();
  /** A statement's verdict is awaited: the client's next messages wait for it (the socket is not read meanwhile). */
  let checking = false;
  let closed = false;

  const session = {
    id,
    prefix,
    remote,
    get settings() {
      return settings;
    },
    send: (bytes: Buffer) => spool.write(bytes),
    fatal: (code: string, text: string) => fail(code, text),
    dequeued: () => flow(),
  };
  admitted.busy = () => options.scheduler.isBusy(id);
  admitted.evict = (code, text) => fail(code, text);

  function fail(code: string, text: string): void {
    if (!client.destroyed) client.end(errorResponse('FATAL', code, text));
    // A client that does not read its error is not waited for.
    setTimeout(() => client.destroy(), 1000).unref();
    close();
  }

  function close(): void {
    closed = true;
    release();
    clearTimeout(authTimer);
    frames.clear();
    spool.close();
    phase = 'startup';
    keys.delete(id);
    options.scheduler.remove(id);
  }

  /** Reads the socket only while the client's queued messages are under their bound and no verdict is awaited. */
  function flow(): void {
    if (client.destroyed) return;
    const over = phase === 'ready' && options.scheduler.queuedBytes(id) > QUEUED_INPUT_BYTES;
    if (over || checking) client.pause();
    else {
      client.resume();
      if (frames.size > 0) drain();
    }
  }

  const loggedIn = (): void => {
    clearTimeout(authTimer);
    phase = 'ready';
    admitted.lastActive = Date.now();
    keys.set(id, key);
    options.scheduler.add(session);
    const shown = new Map(options.serverSettings);
    for (const [name, value] of reported) {
      for (const known of shown.keys()) if (known.toLowerCase() === name.toLowerCase()) shown.delete(known);
      shown.set(name, value);
    }
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
    const checked = startupSettings(params, options.knownSettings, options.write);
    if ('fatal' in checked) return fail(checked.fatal.code, checked.fatal.text);
    settings = checked.settings;
    reported = checked.reported;
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

  /** Handles one message; false when its verdict is awaited (the next message waits for it). */
  const onMessage = (type: string, body: Buffer): boolean => {
    admitted.lastActive = Date.now();
    const verdict = checkFrontend(type, body, { prefix, write: options.write, check, refused: (why) => options.onRefused?.(why, remote) });
    if (!(verdict instanceof Promise)) {
      act(verdict);
      return true;
    }
    checking = true;
    verdict
      .then((v) => (closed ? undefined : act(v)))
      .catch((e: unknown) => fail('XX000', `efa-sync serve: the statement could not be checked (${e instanceof Error ? e.message : String(e)})`))
      .finally(() => {
        checking = false;
        flow();
      });
    return false;
  };

  const act = (verdict: FrontendVerdict): void => {
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

  /**
   * Handles the whole messages received, up to one whose verdict is awaited. Re-entered when a
   * message handed to the session frees room (`dequeued`): each pass takes the next message, and
   * none goes on past a message still being checked, so a client's messages keep their order.
   */
  function drain(): void {
    while (!checking && !client.destroyed && !client.writableEnded) {
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
      if (phase !== 'ready') {
        onPassword(type, whole.subarray(5));
        continue;
      }
      if (!onMessage(type, whole.subarray(5)) || options.scheduler.queuedBytes(id) > QUEUED_INPUT_BYTES) return flow();
    }
  }

  client.on('data', (chunk: Buffer) => {
    frames.push(chunk);
    flow();
  });
  client.on('error', () => client.destroy());
  client.on('close', close);
}

export async function startWireProxy(options: WireProxyOptions): Promise<WireProxy> {
  const sockets = new Set<Socket>();
  const admission = new Admission(
    { maxConnections: options.maxConnections, perAddress: options.maxConnectionsPerAddress, idleSessionMs: options.idleSessionMs },
    (what) => options.onProblem?.(what),
  );
  const keys = new Map<number, Key>();
  let nextId = 1;
  const guard = options.guard === false ? undefined : new GuardPool({ onProblem: (what) => options.onProblem?.(what) });
  await guard?.start();
  const check: StatementCheck | undefined = guard === undefined ? undefined : (sql, write) => guard.check(sql, write);
  const server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    const address = socket.remoteAddress ?? '?';
    const refused = admission.refusal(address);
    if (refused !== undefined) return refuseSocket(socket, refused);
    sockets.add(socket);
    const admitted: Admitted = { socket, address, lastActive: undefined, busy: () => false, evict: () => socket.destroy() };
    admission.add(admitted);
    const release = (): void => admission.release(admitted);
    socket.on('close', () => {
      sockets.delete(socket);
      release();
    });
    socket.setNoDelay(true);
    handle(socket, nextId++, options, check, keys, admitted, release);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  }).catch(async (e: unknown) => {
    await guard?.stop();
    throw e;
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => void (guard?.stop() ?? Promise.resolve()).then(() => resolve()));
      }),
  };
}
