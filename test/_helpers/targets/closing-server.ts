import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { HttpTarget } from './http-target.ts';

export interface ClosingServer extends HttpTarget {
  /** Requests answered, and requests whose connection was closed instead of answered. */
  readonly answered: number;
  readonly dropped: number;
}

/**
 * An HTTP server that answers the first request of each connection and closes the
 * connection, unanswered, when a second request arrives on it: the race a kept-alive
 * socket loses when the server times it out just as the client reuses it ("other side
 * closed"). The first answer still says keep-alive, so clients do reuse the socket.
 * `drop(req)` closes a request's connection whatever its order (a method the server kills).
 */
export async function startClosingServer(handler: (req: IncomingMessage, res: ServerResponse) => void, drop: (req: IncomingMessage) => boolean = () => false): Promise<ClosingServer> {
  const served = new WeakMap<Socket, number>();
  let answered = 0;
  let dropped = 0;
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1 || drop(req)) {
      dropped += 1;
      req.socket.destroy();
      return;
    }
    answered += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get answered() {
      return answered;
    },
    get dropped() {
      return dropped;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
