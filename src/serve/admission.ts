import type { Socket } from 'node:net';
import { errorResponse, GSSENC_REQUEST, SSL_REQUEST } from './protocol.js';

/**
 * Who gets a connection: `maxConnections` at most (those logging in count too), `perAddress` at most
 * from one address, so one machine's idle connections cannot lock every other out; and when every
 * slot is taken, the logged-in client idle longest (sending nothing, holding no transaction, for at
 * least `idleSessionMs`) is let go for the newcomer, as PostgreSQL's idle_session_timeout would have.
 */

export interface Admitted {
  readonly socket: Socket;
  readonly address: string;
  /** When the client last sent a message; undefined while it logs in. */
  lastActive: number | undefined;
  /** True while the session is doing something for it (a statement, a transaction, queued messages). */
  busy(): boolean;
  /** Ends it with a FATAL. */
  evict(code: string, text: string): void;
}

export interface AdmissionLimits {
  readonly maxConnections: number;
  readonly perAddress: number;
  /** 0 = never let an idle client go. */
  readonly idleSessionMs: number;
}

export class Admission {
  private readonly admitted = new Set<Admitted>();

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly onProblem: (what: string) => void,
  ) {}

  /** Why `address` cannot connect now (53300), after trying to free a slot; undefined when it may. */
  refusal(address: string): string | undefined {
    const fromHere = [...this.admitted].filter((a) => a.address === address).length;
    if (fromHere >= this.limits.perAddress) {
      return `sorry, too many clients already: efa-sync serve takes ${this.limits.perAddress} connections at a time from one address (serve --max-connections-per-address)`;
    }
    if (this.admitted.size >= this.limits.maxConnections && !this.freeIdleSlot()) {
      return `sorry, too many clients already: efa-sync serve takes ${this.limits.maxConnections} connections at a time (those still logging in count too; serve --max-connections)`;
    }
    return undefined;
  }

  add(entry: Admitted): void {
    this.admitted.add(entry);
  }

  /** The slot is free as soon as the server has given up on the connection, not when the client has read its error. */
  release(entry: Admitted): void {
    this.admitted.delete(entry);
  }

  private freeIdleSlot(): boolean {
    if (this.limits.idleSessionMs <= 0) return false;
    const now = Date.now();
    let longest: Admitted | undefined;
    for (const a of this.admitted) {
      if (a.lastActive === undefined || a.busy() || now - a.lastActive < this.limits.idleSessionMs) continue;
      if (longest === undefined || (longest.lastActive ?? 0) > a.lastActive) longest = a;
    }
    if (longest === undefined) return false;
    const seconds = Math.round((now - (longest.lastActive ?? now)) / 1000);
    this.onProblem(`a client from ${longest.address} idle for ${seconds} s let go for a new connection (every slot was taken)`);
    longest.evict('57P05', `terminating connection due to idle-session timeout: idle for ${seconds} s while another client needed the connection (serve --idle-session-timeout)`);
    this.admitted.delete(longest);
    return true;
  }
}

/**
 * Tells a refused socket why: a client that first asks for TLS (psql's default sslmode=prefer) is
 * answered 'N' and then, after its startup packet, the FATAL, so it shows the reason instead of "server
 * sent an error response during SSL exchange".
 */
export function refuseSocket(socket: Socket, text: string): void {
  const fatal = errorResponse('FATAL', '53300', text);
  let answeredTls = false;
  socket.on('data', (chunk: Buffer) => {
    const code = chunk.length >= 8 ? chunk.readInt32BE(4) : 0;
    if (!answeredTls && chunk.length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
      answeredTls = true;
      socket.write('N');
      return;
    }
    socket.end(fatal);
  });
  setTimeout(() => socket.destroy(), 5_000).unref();
}
