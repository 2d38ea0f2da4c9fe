import { connect, createServer, type Socket } from 'node:net';
import { checkStatement } from './guard.js';
import { ScramExchange } from './scram.js';

/**
 * The front door of `serve`: a PostgreSQL-protocol proxy between the network and PGlite's socket
 * server (which listens on a Unix socket in a private directory, so nothing reaches PGlite but
 * this). pglite-socket itself answers every startup with "authentication ok" and hands each
 * message to PGlite's one superuser session; this proxy adds what a server would do first:
 *
 * - a password (SCRAM-SHA-256) when one is set;
 * - a startup message of its own (user and database postgres, a few harmless settings): a client
 *   cannot slip `options=-c role=…` or another setting past it;
 * - every query and Parse message checked on its parse tree (`guard.ts`); a refused one is replaced
 *   by a call that raises the refusal inside PGlite, so the client sees an ordinary error and the
 *   session's transaction state stays what PostgreSQL says it is.
 */

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const MECHANISM = 'SCRAM-SHA-256';

/** Startup settings passed on; anything else a client sends at startup (`options`, …) is dropped. */
const STARTUP_SETTINGS = new Set(['application_name', 'client_encoding', 'datestyle', 'timezone', 'extra_float_digits', 'intervalstyle']);

export interface WireProxyOptions {
  readonly host: string;
  readonly port: number;
  /** The Unix socket PGlite's socket server listens on. */
  readonly backendPath: string;
  /** Required of every client when set (SCRAM-SHA-256). */
  readonly password?: string | undefined;
  /** `--write`: row changes pass the statement check too. */
  readonly write: boolean;
  readonly maxConnections: number;
  /** Told about each refused statement and failed password (for the log). */
  readonly onRefused?: (what: string, remote: string) => void;
}

export interface WireProxy {
  readonly port: number;
  stop(): Promise<void>;
}

/** A typed backend message: type byte, length, body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string): Buffer => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

function errorResponse(severity: 'ERROR' | 'FATAL', code: string, text: string): Buffer {
  return message('E', Buffer.concat([cstring(`S${severity}`), cstring(`V${severity}`), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0])]));
}

/** A NUL-terminated string at `offset`, and where the next field starts. */
function readCString(buffer: Buffer, offset: number): [string, number] {
  const end = buffer.indexOf(0, offset);
  if (end < 0) return [buffer.subarray(offset).toString('utf8'), buffer.length];
  return [buffer.subarray(offset, end).toString('utf8'), end + 1];
}

/** An E'' literal: the same whatever the client set standard_conforming_strings to. */
const literal = (text: string): string => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The statement a refused one is replaced by: `efa_serve.refuse` raises the reason (SQLSTATE 42501).
 * A Parse message keeps its parameter count, so the client's Bind still fits.
 */
function refusalSql(reason: string, parameters: number): string {
  const call = `SELECT efa_serve.refuse(${literal(reason)})`;
  if (parameters === 0) return call;
  const columns = Array.from({ length: parameters }, (_, i) => `$${i + 1}::text`).join(', ');
  return `${call} FROM (SELECT ${columns}) AS ignored`;
}

/** Rebuilds a 'Q' or 'P' message with its statement checked; undefined = unchanged. */
function guarded(type: string, body: Buffer, write: boolean, refused: (why: string) => void): Buffer | undefined {
  if (type === 'Q') {
    const [sql] = readCString(body, 0);
    const verdict = checkStatement(sql, write);
    if (verdict.refused === undefined) return undefined;
    refused(verdict.refused);
    return message('Q', cstring(refusalSql(verdict.refused, 0)));
  }
  const [name, afterName] = readCString(body, 0);
  const [sql, afterSql] = readCString(body, afterName);
  const verdict = checkStatement(sql, write);
  if (verdict.refused === undefined) return undefined;
  refused(verdict.refused);
  const declared = afterSql + 2 <= body.length ? body.readInt16BE(afterSql) : 0;
  const types = body.subarray(afterSql + 2);
  const count = Buffer.alloc(2);
  count.writeInt16BE(declared);
  // Declared types stay as they were; parameters the statement used beyond them are inferred as text.
  return message('P', Buffer.concat([cstring(name), cstring(refusalSql(verdict.refused, Math.max(declared, verdict.parameters))), count, types]));
}

function handle(client: Socket, options: WireProxyOptions): void {
  const remote = `${client.remoteAddress ?? '?'}:${client.remotePort ?? '?'}`;
  let buffer = Buffer.alloc(0);
  let phase: 'startup' | 'sasl-first' | 'sasl-final' | 'relay' = 'startup';
  let backend: Socket | undefined;
  let startup = Buffer.alloc(0);
  let user = 'postgres';
  const scram = options.password === undefined ? undefined : new ScramExchange(options.password);

  const fail = (code: string, text: string): void => {
    client.end(errorResponse('FATAL', code, text));
    backend?.destroy();
    phase = 'startup';
    buffer = Buffer.alloc(0);
  };

  const openBackend = (): void => {
    phase = 'relay';
    const socket = connect(options.backendPath);
    backend = socket;
    socket.on('data', (data) => client.write(data));
    socket.on('error', () => client.destroy());
    socket.on('close', () => client.end());
    socket.write(startup);
  };

  const onStartup = (body: Buffer): void => {
    const params = new Map<string, string>();
    for (let at = 4; at < body.length; ) {
      const [key, next] = readCString(body, at);
      if (key === '') break;
      const [value, after] = readCString(body, next);
      params.set(key, value);
      at = after;
    }
    user = params.get('user') ?? 'postgres';
    const kept: Buffer[] = [int32(PROTOCOL_3), cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres')];
    for (const [key, value] of params) if (STARTUP_SETTINGS.has(key.toLowerCase())) kept.push(cstring(key), cstring(value));
    kept.push(Buffer.from([0]));
    const rest = Buffer.concat(kept);
    startup = Buffer.concat([int32(rest.length + 4), rest]);
    if (scram === undefined) return openBackend();
    phase = 'sasl-first';
    client.write(message('R', Buffer.concat([int32(10), cstring(MECHANISM), Buffer.from([0])])));
  };

  const badPassword = (): void => {
    options.onRefused?.(`password authentication failed for user "${user}"`, remote);
    fail('28P01', `password authentication failed for user "${user}"`);
  };

  const onTyped = (type: string, body: Buffer, whole: Buffer): void => {
    if (phase === 'sasl-first' || phase === 'sasl-final') {
      if (type !== 'p' || scram === undefined) return fail('08P01', 'expected a password message');
      if (phase === 'sasl-first') {
        const [mechanism, at] = readCString(body, 0);
        const data = body.subarray(at + 4).toString('utf8');
        const reply = mechanism === MECHANISM ? scram.first(data) : undefined;
        if (reply === undefined) return badPassword();
        phase = 'sasl-final';
        client.write(message('R', Buffer.concat([int32(11), Buffer.from(reply, 'utf8')])));
        return;
      }
      const reply = scram.final(body.toString('utf8'));
      if (reply === undefined) return badPassword();
      client.write(message('R', Buffer.concat([int32(12), Buffer.from(reply, 'utf8')])));
      return openBackend();
    }
    if (type === 'F') {
      options.onRefused?.('a fast-path function call', remote);
      return fail('42501', 'efa-sync serve: fast-path function calls (client-side large objects) are refused');
    }
    let out = whole;
    if (type === 'Q' || type === 'P') out = guarded(type, body, options.write, (why) => options.onRefused?.(why, remote)) ?? whole;
    backend?.write(out);
  };

  client.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (!client.destroyed) {
      if (phase === 'startup') {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (length < 8 || length > 10_000) return fail('08P01', 'invalid startup packet');
        if (buffer.length < length) return;
        const body = buffer.subarray(4, length);
        buffer = buffer.subarray(length);
        const code = body.readInt32BE(0);
        // No TLS here: the client goes on in the clear (sslmode=prefer) or gives up (require).
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) client.write('N');
        else if (code === CANCEL_REQUEST) return void client.end();
        else if (code === PROTOCOL_3) onStartup(body);
        else return fail('08P01', `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (length < 4) return fail('08P01', 'invalid message length');
      if (buffer.length < length + 1) return;
      const whole = buffer.subarray(0, length + 1);
      buffer = buffer.subarray(length + 1);
      onTyped(String.fromCharCode(whole[0] ?? 0), whole.subarray(5), whole);
    }
  });
  client.on('error', () => backend?.destroy());
  client.on('close', () => backend?.destroy());
}

export async function startWireProxy(options: WireProxyOptions): Promise<WireProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    handle(socket, options);
  });
  server.maxConnections = options.maxConnections;
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
