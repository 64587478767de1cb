import { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { addressOnly } from './address-only.mjs';

export interface ExchangeOptions {
  payload?: Buffer | string;
  tls?: boolean;
  /** How long to wait for the peer, in all. */
  waitMs: number;
  maxBytes?: number;
  signal?: AbortSignal;
  servername?: string;
  /** Keep reading until the peer closes (epmd answers, then closes), not just the first reply. */
  untilClose?: boolean;
}

export interface ExchangeResult {
  data: Buffer;
  tls?: { protocol: string | null; cipher: string };
}

/**
 * Opens a connection (plain or TLS), optionally sends `payload`, and collects what the
 * peer sends until it closes, `maxBytes` arrive, or `waitMs` passes (by default also
 * 50 ms after a reply, which is all a probe needs). Never throws for network errors:
 * an empty buffer means "nothing said".
 */
export function exchange(host: string, port: number, o: ExchangeOptions): Promise<ExchangeResult> {
  addressOnly(host);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tlsInfo: ExchangeResult['tls'];
    let done = false;
    let settle: NodeJS.Timeout | null = null;
    const socket: Socket | TLSSocket = o.tls
      ? tlsConnect({ host, port, rejectUnauthorized: false, servername: o.servername && !/^[\d.:]+$/.test(o.servername) ? o.servername : undefined })
      : new Socket().connect({ host, port });
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (settle) clearTimeout(settle);
      o.signal?.removeEventListener('abort', finish);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), tls: tlsInfo });
    };
    const timer = setTimeout(finish, o.waitMs);
    o.signal?.addEventListener('abort', finish, { once: true });
    socket.once(o.tls ? 'secureConnect' : 'connect', () => {
      if (o.tls) {
        const t = socket as TLSSocket;
        tlsInfo = { protocol: t.getProtocol(), cipher: t.getCipher()?.name ?? '' };
      }
      if (o.payload !== undefined) socket.write(o.payload);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= (o.maxBytes ?? 4096)) return finish();
      // Let a little more arrive if the reply came split.
      if (!o.untilClose && !settle) settle = setTimeout(finish, 50);
    });
    socket.once('error', finish);
    socket.once('close', finish);
  });
}
