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

/**
 * An attempt's ticket, by the abort signal the scheduler gives the attempt and the client hands on to
 * the transport. Not an AsyncLocalStorage: on Node 22 that turns on async hooks for every promise of
 * the process, the writer's included, to carry a value the signal already carries.
 */
const ticketBySignal = new WeakMap<AbortSignal, WireTicket>();
/** Tickets of sends under way whose undici request is not created yet, by origin + path. */
const awaitingRequest = new Map<string, WireTicket[]>();
/** Undici's request objects, to the ticket of the send that created them. */
const ticketOf = new WeakMap<object, WireTicket>();
let subscribed = false;

/** The scheduler: requests sent with this attempt's signal report their write to `ticket`. */
export function attachTicket(signal: AbortSignal, ticket: WireTicket): void {
  ticketBySignal.set(signal, ticket);
}

/**
 * Called by a transport on the runtime's fetch (undici) as it sends `url` for an attempt: undici's
 * diagnostics channels say when the request was written (`undici:request:create` as the fetch is
 * dispatched, matched by origin and path; `undici:client:sendHeaders` when its head is on the socket).
 * Returns what the transport calls when the send ends, or undefined when nothing reports.
 */
export function expectWireReport(signal: AbortSignal | undefined, url: URL): (() => void) | undefined {
  const ticket = signal === undefined ? undefined : ticketBySignal.get(signal);
  if (ticket === undefined) return undefined;
  subscribeOnce();
  ticket.expectWire();
  const key = url.origin + url.pathname + url.search;
  const waiting = awaitingRequest.get(key);
  if (waiting === undefined) awaitingRequest.set(key, [ticket]);
  else waiting.push(ticket);
  return () => {
    // A fetch that failed before undici made its request (a refused URL) leaves its ticket here.
    const left = awaitingRequest.get(key);
    const index = left?.indexOf(ticket) ?? -1;
    if (left === undefined || index < 0) return;
    left.splice(index, 1);
    if (left.length === 0) awaitingRequest.delete(key);
  };
}

function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:request:create', (message) => {
    const request = (message as { request?: { origin?: unknown; path?: unknown } }).request;
    if (request === undefined) return;
    const key = `${String(request.origin)}${String(request.path)}`;
    const waiting = awaitingRequest.get(key);
    // Two sends of one URL at once may swap tickets: both are pending, and both are written.
    const ticket = waiting?.shift();
    if (ticket === undefined) return;
    if (waiting?.length === 0) awaitingRequest.delete(key);
    ticketOf.set(request, ticket);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const request = (message as { request?: object }).request;
    if (request !== undefined) ticketOf.get(request)?.wrote();
  });
}
