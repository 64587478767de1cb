import { createServer, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TlsTarget {
  port: number;
  /** `https://<host>:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTPS server on loopback with the TLS settings a test chooses (versions, ciphers,
 * certificate). `@SECLEVEL=0` lets it offer legacy protocols and weak keys on purpose.
 */
export async function startTlsTarget(
  tls: ServerOptions,
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
  host = '127.0.0.1',
): Promise<TlsTarget> {
  const server = createServer({ ciphers: 'DEFAULT:@SECLEVEL=0', minVersion: 'TLSv1', ...tls }, handler);
  server.on('tlsClientError', () => {}); // refused probes are expected
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
