import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A pass-through to an upstream that holds the requests arriving while it is shut. */
export interface Gate {
  /** The gate's address with the upstream's path: what a job's baseUrl points at. */
  readonly url: string;
  /** Requests from now on wait (a run stays alive, mid-sweep, for as long as a test needs). */
  shut(): void;
  /** The waiting requests go on, and so do later ones. */
  open(): void;
  stop(): Promise<void>;
}

/**
 * A gate in front of `upstream` (a simulator's URL): a test that needs a run to hold its lock while
 * something else happens shuts the gate instead of slowing the whole run down with a low rate
 * limit, so the run waits exactly as long as the test and then finishes at its own pace.
 */
export async function startGate(upstream: string): Promise<Gate> {
  const target = new URL(upstream);
  let waiting: (() => void)[] | undefined;
  const server = createServer((req, res) => {
    const forward = (): void => {
      const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (waiting) waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    shut: () => void (waiting ??= []),
    open: () => {
      const now = waiting ?? [];
      waiting = undefined;
      for (const forward of now) forward();
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
