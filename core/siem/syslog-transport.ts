import dgram from 'node:dgram';
import { isIP } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { ipLiteral, type AddressPolicy } from '../outbound/address-policy.ts';
import { guardedLookup } from '../outbound/guarded-lookup.ts';

export type SyslogProtocol = 'tcp_tls' | 'tcp' | 'udp';

export interface SyslogTarget {
  protocol: SyslogProtocol;
  host: string;
  port: number;
  tls?: { ca: string | null; cert: string | null; key: string | null; serverName: string | null; verify: boolean };
  /** The outbound SSRF policy (outbound.allowPrivateCidrs), applied to the addresses actually dialled. */
  policy: AddressPolicy;
}

export interface TransportTimings {
  connectTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

/** RFC 5425 / RFC 6587 octet counting: `MSG-LEN SP SYSLOG-MSG`, the length in bytes. */
export function octetFrame(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

/** A whole batch octet-framed into one buffer (one allocation, one write). */
export function octetFrames(messages: string[]): Buffer {
  const lengths = messages.map((m) => Buffer.byteLength(m, 'utf8'));
  let size = 0;
  for (const n of lengths) size += String(n).length + 1 + n;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    at += out.write(`${lengths[i]} `, at, 'latin1');
    at += out.write(messages[i]!, at, 'utf8');
  }
  return out;
}

/** A batch ready to write: the messages, and for TCP and TLS the framed bytes (made while the previous batch is written). */
export interface PreparedBatch {
  messages: string[];
  framed: Buffer | null;
}

/**
 * One connection to a syslog collector, reopened on demand with exponential backoff.
 * `send` writes a whole batch and resolves once the socket accepted all of it; it
 * rejects if the connection fails first, and the caller resends the batch on the next
 * connection. So each connection carries every message at most once, in order, and
 * what is in flight is bounded by the batch the caller passes.
 */
export class SyslogTransport {
  readonly #target: SyslogTarget;
  readonly #t: TransportTimings;
  #socket: net.Socket | null = null;
  /** The connection attempt in flight, if any. */
  #opening: Promise<net.Socket> | null = null;
  /** `#opening` was started by warm() and no send has taken it yet; or how that attempt failed. */
  #warmed: { error: Error | null } | null = null;
  #udp: dgram.Socket | null = null;
  #failures = 0;
  #retryAt = 0;
  #closed = false;
  #cancelWait: (() => void) | null = null;

  constructor(target: SyslogTarget, timings: TransportTimings) {
    this.#target = target;
    this.#t = timings;
  }

  get connected(): boolean {
    return this.#udp !== null || (this.#socket !== null && !this.#socket.destroyed);
  }

  /** Frames a batch for this transport's protocol (UDP sends each message as it is). */
  prepare(messages: string[]): PreparedBatch {
    return { messages, framed: this.#target.protocol === 'udp' ? null : octetFrames(messages) };
  }

  /**
   * Starts connecting now, so the handshake runs while the caller renders a batch; the
   * next send uses (and, if it failed, reports) this connection attempt. Does nothing
   * while connected, connecting, backing off after a failure, or for UDP.
   */
  warm(): void {
    if (this.#closed || this.#target.protocol === 'udp' || this.#opening || this.#warmed || this.#retryAt > Date.now()) return;
    if (this.#socket && !this.#socket.destroyed && this.#socket.writable) return;
    const warmed: { error: Error | null } = { error: null };
    this.#warmed = warmed;
    this.#opening = this.#open();
    this.#opening.catch((err: Error) => {
      warmed.error = err;
    });
  }

  async send(messages: string[]): Promise<void> {
    return this.sendPrepared(this.prepare(messages));
  }

  async sendPrepared(batch: PreparedBatch): Promise<void> {
    if (!batch.messages.length) return;
    try {
      const literal = ipLiteral(this.#target.host);
      const refused = literal ? this.#target.policy.refusal(literal) : null;
      if (refused) throw new Error(`destination ${literal} refused (${refused} address; see outbound.allowPrivateCidrs)`);
      if (this.#target.protocol === 'udp') await this.#sendUdp(batch.messages);
      else await this.#write(await this.#stream(), batch.framed ?? octetFrames(batch.messages));
      this.#failures = 0;
    } catch (err) {
      this.#failures += 1;
      const delay = Math.min(this.#t.reconnectMaxMs, this.#t.reconnectMinMs * 2 ** (this.#failures - 1));
      this.#retryAt = Date.now() + Math.round(delay * (0.75 + Math.random() * 0.5));
      this.#drop();
      throw err;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelWait?.();
    const socket = this.#socket;
    this.#socket = null;
    if (socket && !socket.destroyed) {
      // A graceful end flushes what was written; a collector that stopped reading gets 500 ms.
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 500);
        socket.end(() => {
          clearTimeout(timer);
          done();
        });
      });
    }
    socket?.destroy();
    this.#udp?.close();
    this.#udp = null;
  }

  #drop(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  async #backoff(): Promise<void> {
    const wait = this.#retryAt - Date.now();
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.#cancelWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#cancelWait = null;
  }

  async #stream(): Promise<net.Socket> {
    if (this.#socket && !this.#socket.destroyed && this.#socket.writable) return this.#socket;
    // A connection warm() started is this send's connection: its failure is this send's failure.
    const warmed = this.#warmed;
    this.#warmed = null;
    if (warmed?.error) throw warmed.error;
    return this.#opening ?? this.#open();
  }

  #open(): Promise<net.Socket> {
    const opening = this.#connect().finally(() => {
      if (this.#opening === opening) this.#opening = null;
    });
    this.#opening = opening;
    return opening;
  }

  async #connect(): Promise<net.Socket> {
    await this.#backoff();
    if (this.#closed) throw new Error('transport closed');
    const { host, port, protocol } = this.#target;
    const lookup = guardedLookup(this.#target.policy) as unknown as net.LookupFunction;
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      let s: net.Socket;
      const fail = (err: Error) => {
        clearTimeout(timer);
        s.destroy();
        reject(err);
      };
      if (protocol === 'tcp_tls') {
        const o = this.#target.tls ?? { ca: null, cert: null, key: null, serverName: null, verify: true };
        const name = o.serverName ?? host;
        s = tls.connect({
          host,
          port,
          lookup,
          servername: isIP(name) ? undefined : name,
          ca: o.ca ?? undefined,
          cert: o.cert ?? undefined,
          key: o.key ?? undefined,
          rejectUnauthorized: o.verify,
          checkServerIdentity: (_h, cert) => (o.verify ? tls.checkServerIdentity(name, cert) : undefined),
          minVersion: 'TLSv1.2',
        });
        s.once('secureConnect', () => {
          clearTimeout(timer);
          resolve(s);
        });
      } else {
        s = net.connect({ host, port, lookup });
        s.once('connect', () => {
          clearTimeout(timer);
          resolve(s);
        });
      }
      s.once('error', fail);
      const timer = setTimeout(() => fail(new Error(`connect to ${host}:${port} timed out`)), this.#t.connectTimeoutMs);
    });
    if (this.#closed) {
      // close() ran while this connect was in flight: nothing may outlive it.
      socket.destroy();
      throw new Error('transport closed');
    }
    socket.removeAllListeners('error');
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    // Collectors send nothing back; reading keeps the socket flowing and notices a close.
    socket.on('data', () => {});
    socket.on('error', () => socket.destroy());
    socket.on('end', () => socket.destroy());
    this.#socket = socket;
    this.#warmed = null;
    return socket;
  }

  #write(socket: net.Socket, data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const onClose = () => finish(new Error('connection to the collector closed'));
      const timer = setTimeout(() => finish(new Error('write to the collector timed out')), this.#t.connectTimeoutMs * 3);
      const finish = (err?: Error | null) => {
        clearTimeout(timer);
        socket.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      socket.once('close', onClose);
      socket.write(data, (err) => finish(err ?? (socket.destroyed ? new Error('connection to the collector closed') : null)));
    });
  }

  async #sendUdp(messages: string[]): Promise<void> {
    await this.#backoff();
    if (this.#closed) throw new Error('transport closed');
    // Resolved through the guard here, not with the socket's own lookup: dgram also runs
    // that lookup for its implicit bind to 0.0.0.0, which the policy would refuse.
    const address = await new Promise<string>((resolve, reject) => {
      guardedLookup(this.#target.policy)(this.#target.host, {}, (err, addr) => (err ? reject(err) : resolve(addr as string)));
    });
    if (!this.#udp) {
      this.#udp = dgram.createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
      this.#udp.on('error', () => {});
    }
    const udp = this.#udp;
    for (const m of messages) {
      await new Promise<void>((resolve, reject) => udp.send(Buffer.from(m, 'utf8'), this.#target.port, address, (err) => (err ? reject(err) : resolve())));
    }
  }
}
