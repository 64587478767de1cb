import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// What a client written from the API specification alone has: bearer-token JSON calls, an
// SSE reader, and an HTTP receiver that checks the signature header the spec describes.

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A JSON call with `Authorization: Bearer <token>`, answering status, headers and the parsed body. */
export function specClient(base: string, token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (an export file): kept as text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

export interface StreamEvent {
  event: string;
  id: string;
  data: any;
}

/** An open event stream, collecting every message as it arrives. */
export interface EventStream {
  events: StreamEvent[];
  /** The `retry:` value sent on connection, once. */
  retry: () => number | undefined;
  close(): void;
}

/** Opens GET /api/events/stream with the given query (token in the query, as the spec allows) and headers. */
export async function openStream(base: string, query: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/events/stream?${query}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`stream: ${response.status} ${await response.text()}`);
  const events: StreamEvent[] = [];
  let retry: number | undefined;
  let buffer = '';
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of message.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            fields[line.slice(0, colon)] = (fields[line.slice(0, colon)] ? `${fields[line.slice(0, colon)]}\n` : '') + line.slice(colon + 1).replace(/^ /, '');
          }
          if (fields.retry !== undefined) retry = Number(fields.retry);
          if (fields.event) events.push({ event: fields.event, id: fields.id ?? '', data: fields.data ? JSON.parse(fields.data) : null });
        }
      }
    } catch {
      // closed
    }
  })();
  return { events, retry: () => retry, close: () => controller.abort() };
}

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

/**
 * A loopback HTTP endpoint that records every POST and answers 200, and answers any other
 * request with a small HTML page as an old, unhardened web server would (no security
 * headers, its version in `Server`), so a web scan of it has findings.
 */
export async function startReceiver(): Promise<{ url: string; port: number; received: Delivery[]; close(): Promise<void> }> {
  const received: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', server: 'Apache/2.4.29 (Ubuntu)', 'x-powered-by': 'PHP/7.2.24' });
      res.end('<!doctype html><html><head><title>lab</title></head><body><form action="/login" method="post"><input name="user"></form></body></html>');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // kept as text
      }
      received.push({ path: req.url ?? '', headers: req.headers, raw, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Whether `X-SVC-Signature: sha256=<hex>` is the HMAC-SHA256 of the raw body under the secret, compared in constant time (the spec's rule 5). */
export function signedBy(delivery: Delivery, secret: string): boolean {
  const header = String(delivery.headers['x-svc-signature'] ?? '');
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(delivery.raw).digest('hex')}`);
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), expected);
}
