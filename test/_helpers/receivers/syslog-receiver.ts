import net from 'node:net';
import tls from 'node:tls';
import { parseCef, type CefParsed } from '../parsers/cef-parser.ts';
import { parse5424, type Syslog5424 } from '../parsers/syslog-parser.ts';

export interface ReceivedFrame {
  /** Which accepted connection carried it (1, 2, …). */
  connection: number;
  raw: string;
  syslog: Syslog5424;
  /** Set when MSG is a CEF line. */
  cef: CefParsed | null;
}

export interface SyslogReceiver {
  port: number;
  frames: ReceivedFrame[];
  /** Every framing or parsing violation seen; a strict test expects none. */
  errors: string[];
  connections: number;
  waitFor(predicate: (frames: ReceivedFrame[]) => boolean, timeoutMs?: number): Promise<ReceivedFrame[]>;
  /** Closes the listener and cuts every connection (a collector outage). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

export interface ReceiverOptions {
  /** TLS server material; omit for plain TCP. */
  tls?: tls.TlsOptions;
}

/**
 * A loopback syslog receiver that accepts RFC 5425 / RFC 6587 octet-counted frames
 * only (`MSG-LEN SP SYSLOG-MSG`, the length in bytes, no trailer) and parses every
 * message strictly as RFC 5424 and, when it is one, CEF. Anything else is recorded in
 * `errors` and the connection is dropped, as a strict collector would.
 */
export async function startSyslogReceiver(options: ReceiverOptions = {}): Promise<SyslogReceiver> {
  const frames: ReceivedFrame[] = [];
  const errors: string[] = [];
  const sockets = new Set<net.Socket>();
  const waiters = new Set<() => void>();
  let connections = 0;

  const onFrame = (connection: number, raw: string) => {
    try {
      const syslog = parse5424(raw);
      const cef = syslog.msg?.startsWith('CEF:') ? parseCef(syslog.msg) : null;
      frames.push({ connection, raw, syslog, cef });
    } catch (err) {
      errors.push(`${(err as Error).message} in ${JSON.stringify(raw.slice(0, 200))}`);
    }
    for (const w of [...waiters]) w();
  };

  const handle = (socket: net.Socket) => {
    connections += 1;
    const id = connections;
    sockets.add(socket);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const sp = buffer.indexOf(0x20);
        if (sp === -1) {
          if (buffer.length > 10) errors.push('no MSG-LEN within 10 bytes');
          break;
        }
        const len = buffer.subarray(0, sp).toString('latin1');
        if (!/^[1-9]\d{0,8}$/.test(len)) {
          errors.push(`bad MSG-LEN ${JSON.stringify(len.slice(0, 20))}`);
          socket.destroy();
          return;
        }
        const end = sp + 1 + Number(len);
        if (buffer.length < end) break;
        const body = buffer.subarray(sp + 1, end);
        const text = body.toString('utf8');
        if (Buffer.byteLength(text, 'utf8') !== body.length) errors.push('frame is not valid UTF-8');
        buffer = buffer.subarray(end);
        onFrame(id, text);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };

  const server = options.tls ? tls.createServer(options.tls, handle) : net.createServer(handle);
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    frames,
    errors,
    get connections() {
      return connections;
    },
    waitFor(predicate, timeoutMs = 15000) {
      return new Promise((ok, fail) => {
        const check = () => {
          if (!predicate(frames)) return;
          waiters.delete(check);
          clearTimeout(timer);
          ok(frames);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`syslog condition not met: ${frames.length} frames, errors ${JSON.stringify(errors)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async restart() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
  };
}
