import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpTarget {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** A plain HTTP server on loopback running a test site handler. */
export async function startHttpTarget(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<HttpTarget> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
