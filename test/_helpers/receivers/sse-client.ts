import http from 'node:http';

export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
  retry: number | null;
}

export interface SseClient {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  /** Resolves with the messages once `predicate` holds (rejects after `timeoutMs`, a safety net only). */
  waitFor(predicate: (messages: SseMessage[]) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves when the response is over: true when the server ended it properly, false when the connection was cut. */
  ended: Promise<boolean>;
  close(): void;
}

/** Parses a text/event-stream body per the WHATWG rules the server relies on. */
function parser(onMessage: (m: SseMessage) => void): (chunk: string) => void {
  let buffer = '';
  let event = '';
  let id: string | null = null;
  let data: string[] = [];
  let retry: number | null = null;
  return (chunk) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.search(/\r\n|\n|\r/)) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (data.length || retry !== null) onMessage({ event: event || 'message', id, data: data.join('\n'), retry });
        event = '';
        id = null;
        data = [];
        retry = null;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
    }
  };
}

/** Opens an SSE stream over a real socket; non-200 answers resolve too (messages stay empty). */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient & { body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      const waiters = new Set<() => void>();
      let raw = '';
      const feed = parser((m) => {
        messages.push(m);
        for (const w of [...waiters]) w();
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        feed(chunk);
      });
      const ended = new Promise<boolean>((done) => {
        res.on('end', () => done(res.complete));
        res.on('close', () => done(res.complete));
      });
      resolve({
        statusCode: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        ended,
        body: ended.then(() => raw),
        waitFor(predicate, timeoutMs = 10000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (!predicate(messages)) return;
              waiters.delete(check);
              clearTimeout(timer);
              ok(messages);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`SSE condition not met; got ${messages.length} messages: ${JSON.stringify(messages.slice(-5))}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}
