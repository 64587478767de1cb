import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { sharedTestCertificates } from '../certificates/certs.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes as text (signatures are checked over exactly these). */
  body: string;
  receivedAt: number;
}

/** How the receiver answers one request; a function of the request number (0-based). */
export interface ReceiverReply {
  status: number;
  body?: string;
  /** Milliseconds to wait before answering (to provoke client timeouts). */
  delayMs?: number;
  /** Destroy the socket without answering. */
  hangUp?: boolean;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>` (or `https://[::1]:<port>`). */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replaces the answer policy; default answers 200 `ok`. */
  respond(policy: (req: ReceivedRequest, index: number) => ReceiverReply): void;
  /** Resolves once `count` requests have arrived (rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/**
 * An HTTPS server on loopback with a certificate from the shared test CA that records
 * every request and answers as told: the stand-in for webhook receivers and collectors.
 */
export async function startHttpsReceiver(options: { host?: string } = {}): Promise<HttpsReceiver> {
  const { server: leaf } = await sharedTestCertificates();
  const requests: ReceivedRequest[] = [];
  let policy: (req: ReceivedRequest, index: number) => ReceiverReply = () => ({ status: 200, body: 'ok' });
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer({ cert: leaf.chainPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      const index = requests.length;
      requests.push(received);
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const reply = policy(received, index);
      const answer = () => {
        if (reply.hangUp) {
          req.socket.destroy();
          return;
        }
        res.writeHead(reply.status, { 'content-type': 'text/plain' });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs).unref();
      else answer();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    respond(next) {
      policy = next;
    },
    waitFor(count, timeoutMs = 30_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${count} requests`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice());
          },
        });
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
