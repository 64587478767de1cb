import { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { addressOnly } from './address-only.mjs';

/**
 * Length of the first complete message at the start of `buf`, or 0 while it is
 * incomplete. Throw to refuse bytes that cannot be the protocol expected.
 */
export type Framer = (buf: Buffer) => number;

export interface SessionOptions {
  /** Each step (connect, one read) must finish within this. */
  timeoutMs: number;
  signal?: AbortSignal;
  tls?: boolean;
  servername?: string;
}

const isIp = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

/**
 * A short, polite protocol conversation over TCP (or TLS): connect, write, read whole
 * messages one at a time with a framer, and close. Protocol checks use it to log in and
 * out cleanly, where the service probes only exchange one message. Reads fail with a
 * clear error on timeout, abort or the peer closing.
 */
export class SocketSession {
  #socket: Socket | TLSSocket;
  #buf: Buffer = Buffer.alloc(0);
  #closed: Error | null = null;
  #wake: (() => void) | null = null;
  readonly #opts: SessionOptions;

  private constructor(socket: Socket | TLSSocket, opts: SessionOptions) {
    this.#socket = socket;
    this.#opts = opts;
    this.#attach(socket);
  }

  /** Connects (and completes the TLS handshake with `tls`), or rejects. */
  static open(host: string, port: number, opts: SessionOptions): Promise<SocketSession> {
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
      addressOnly(host);
      const socket = opts.tls
        ? tlsConnect({ host, port, rejectUnauthorized: false, servername: opts.servername && !isIp(opts.servername) ? opts.servername : undefined })
        : new Socket().connect({ host, port });
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error(`connect to ${host}:${port} timed out`)), opts.timeoutMs);
      socket.once('error', fail);
      socket.once(opts.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        resolve(new SocketSession(socket, opts));
      });
    });
  }

  #attach(socket: Socket | TLSSocket): void {
    socket.on('data', (chunk: Buffer) => {
      this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
      this.#wake?.();
    });
    const closed = (err?: Error) => {
      this.#closed ??= err ?? new Error('the server closed the connection');
      this.#wake?.();
    };
    socket.on('error', closed);
    socket.on('close', () => closed());
  }

  write(data: Buffer | string): void {
    if (!this.#closed) this.#socket.write(data);
  }

  /** Bytes received and not read yet. */
  get pending(): number {
    return this.#buf.length;
  }

  /** The next whole message, as `framer` delimits it. */
  read(framer: Framer, timeoutMs = this.#opts.timeoutMs): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const signal = this.#opts.signal;
      const stop = (err: Error | null, message?: Buffer) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#wake = null;
        if (err) reject(err);
        else resolve(message!);
      };
      const onAbort = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(() => stop(new Error('no answer in time')), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const check = () => {
        let size = 0;
        try {
          size = this.#buf.length ? framer(this.#buf) : 0;
        } catch (err) {
          return stop(err as Error);
        }
        if (size > 0 && size <= this.#buf.length) {
          const message = this.#buf.subarray(0, size);
          this.#buf = this.#buf.subarray(size);
          return stop(null, message);
        }
        if (this.#closed) stop(this.#closed);
      };
      this.#wake = check;
      check();
    });
  }

  /** Upgrades the connection to TLS in place (PostgreSQL after its SSLRequest is accepted). */
  startTls(servername?: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const plain = this.#socket;
      plain.removeAllListeners('data');
      plain.removeAllListeners('close');
      plain.removeAllListeners('error');
      plain.on('error', () => undefined);
      const secure = tlsConnect({ socket: plain as Socket, rejectUnauthorized: false, servername: servername && !isIp(servername) ? servername : undefined });
      const timer = setTimeout(() => {
        secure.destroy();
        reject(new Error('TLS handshake timed out'));
      }, this.#opts.timeoutMs);
      secure.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        this.#socket = secure;
        this.#buf = Buffer.alloc(0);
        this.#attach(secure);
        resolve();
      });
    });
  }

  /** Sends `goodbye` (the protocol's own sign-off) if given, then closes our side. */
  close(goodbye?: Buffer | string): void {
    if (!this.#closed && goodbye !== undefined) this.#socket.end(goodbye);
    else this.#socket.end();
    // A peer that never closes its side must not hold the socket.
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }
}
