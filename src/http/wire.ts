import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

/**
 * The moment a request leaves, told to the rate limiter that granted it. A grant is not a send: a
 * request that waits for a connection (a new socket's connect, an upstream that closes each one) is
 * written later, and an event loop stalled meanwhile (a large answer's parse) sends it together with
 * the next grant. The token bucket (token-bucket.ts) counts such a request from its grant until it is
 * written, and then at the moment it was.
 */
export interface WireTicket {
  /** The attempt's transport reports the write: count the request as pending until it does. */
  expectWire(): void;
  /** The request's head was written to its socket now. */
  wrote(): void;
}

const attemptTicket = new AsyncLocalStorage<WireTicket>();
/** Undici's request objects, to the ticket of the attempt whose fetch created them. */
const ticketOf = new WeakMap<object, WireTicket>();
let subscribed = false;

/** Runs an attempt with its ticket, which the transport's requests inside it report to. */
export function runWithTicket<T>(ticket: WireTicket, attempt: () => T): T {
  return attemptTicket.run(ticket, attempt);
}

/**
 * Called by a transport on the runtime's fetch (undici) as a send starts, in the attempt's own turn:
 * undici's diagnostics channels say when each request it created here is written. `undici:request:create`
 * fires while the fetch is dispatched (still in the attempt's async context), `undici:client:sendHeaders`
 * when the head is on the socket, whenever that is.
 */
export function expectWireReport(): void {
  const ticket = attemptTicket.getStore();
  if (ticket === undefined) return;
  if (!subscribed) {
    subscribed = true;
    subscribe('undici:request:create', (message) => {
      const request = (message as { request?: object }).request;
      const current = attemptTicket.getStore();
      if (request !== undefined && current !== undefined) ticketOf.set(request, current);
    });
    subscribe('undici:client:sendHeaders', (message) => {
      const request = (message as { request?: object }).request;
      if (request !== undefined) ticketOf.get(request)?.wrote();
    });
  }
  ticket.expectWire();
}
