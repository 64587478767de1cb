import { randomBytes, X509Certificate } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** What the scripted server saw: the hello a probe sent. */
export interface ReceivedHello {
  kind: 'tls' | 'sslv2';
  /** legacy client_version (0x0002 for SSLv2). */
  clientVersion: number;
  /** Cipher suite ids (TLS) or SSLv2 cipher kinds. */
  suites: number[];
}

export interface ScriptedOptions {
  /** Wire versions this responder "supports" (e.g. [0x0300] for an SSLv3-only server). */
  versions?: number[];
  /** Cipher suite ids it accepts, in no particular order (the client's order wins). */
  suites?: number[];
  /** SSLv2 cipher kinds it answers an SSLv2 CLIENT-HELLO with; absent = hang up on SSLv2. */
  sslv2CipherKinds?: number[];
  /** Certificate (PEM) placed in the SSLv2 SERVER-HELLO. */
  certPem?: string;
  /** Split the ServerHello over two records, written a few bytes per TCP segment. */
  fragment?: boolean;
}

export interface ScriptedServer {
  port: number;
  url: string;
  hellos: ReceivedHello[];
  close(): Promise<void>;
}

const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const record = (type: number, version: number, body: Buffer) => Buffer.concat([Buffer.from([type]), u16(version), u16(body.length), body]);

function parseTlsHello(buf: Buffer): ReceivedHello | null {
  if (buf.length < 5 || buf.length < 5 + buf.readUInt16BE(3)) return null;
  const hs = buf.subarray(5);
  let p = 4;
  const clientVersion = hs.readUInt16BE(p);
  p += 2 + 32;
  p += 1 + hs[p]!;
  const n = hs.readUInt16BE(p);
  const suites: number[] = [];
  for (let i = 0; i < n; i += 2) suites.push(hs.readUInt16BE(p + 2 + i));
  return { kind: 'tls', clientVersion, suites };
}

function parseSslv2Hello(buf: Buffer): ReceivedHello | null {
  const len = ((buf[0]! & 0x7f) << 8) | buf[1]!;
  if (buf.length < 2 + len) return null;
  const specsLen = buf.readUInt16BE(5);
  const suites: number[] = [];
  for (let i = 0; i < specsLen; i += 3) suites.push(buf.readUIntBE(11 + i, 3));
  return { kind: 'sslv2', clientVersion: buf.readUInt16BE(3), suites };
}

async function send(socket: Socket, data: Buffer, fragment: boolean): Promise<void> {
  if (!fragment) return void socket.write(data);
  for (let i = 0; i < data.length; i += 7) {
    socket.write(data.subarray(i, i + 7));
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * A SCRIPTED responder, not a TLS implementation: it reads one ClientHello and answers
 * only the first flight a server with the given versions and suites would send
 * (ServerHello, SSLv2 SERVER-HELLO, or an alert), then waits for the client to hang up.
 * For what no real server on Debian 12 can still do (SSLv2, SSLv3, EXPORT, single DES);
 * it records every hello so tests can also check what the probe offered.
 */
export async function startScriptedServerHello(o: ScriptedOptions): Promise<ScriptedServer> {
  const hellos: ReceivedHello[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      buf = Buffer.concat([buf, chunk]);
      const sslv2 = (buf[0]! & 0x80) !== 0;
      let hello: ReceivedHello | null;
      try {
        hello = buf.length < 2 ? null : sslv2 ? parseSslv2Hello(buf) : parseTlsHello(buf);
      } catch {
        return void socket.destroy();
      }
      if (!hello) return;
      answered = true;
      hellos.push(hello);
      void answer(socket, hello);
    });
  });
  async function answer(socket: Socket, hello: ReceivedHello) {
    if (hello.kind === 'sslv2') {
      const kinds = (o.sslv2CipherKinds ?? []).filter((k) => hello.suites.includes(k));
      if (!o.sslv2CipherKinds || !o.certPem) return void socket.destroy();
      const cert = new X509Certificate(o.certPem).raw;
      const specs = Buffer.concat(kinds.map((k) => Buffer.from([(k >> 16) & 0xff, (k >> 8) & 0xff, k & 0xff])));
      const connId = randomBytes(16);
      const body = Buffer.concat([Buffer.from([4, 0, 1]), u16(0x0002), u16(cert.length), u16(specs.length), u16(connId.length), cert, specs, connId]);
      return send(socket, Buffer.concat([u16(0x8000 | body.length), body]), o.fragment === true);
    }
    const version = (o.versions ?? []).filter((v) => v <= hello.clientVersion).sort((a, b) => b - a)[0];
    if (version === undefined) return send(socket, record(21, 0x0301, Buffer.from([2, 70])), false); // protocol_version
    const suite = hello.suites.find((s) => (o.suites ?? []).includes(s));
    if (suite === undefined) return send(socket, record(21, version, Buffer.from([2, 40])), false); // handshake_failure
    const body = Buffer.concat([u16(version), randomBytes(32), Buffer.from([0]), u16(suite), Buffer.from([0])]);
    const msg = Buffer.concat([Buffer.from([2, 0, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
    const records = o.fragment ? Buffer.concat([record(22, version, msg.subarray(0, 9)), record(22, version, msg.subarray(9))]) : record(22, version, msg);
    return send(socket, records, o.fragment === true);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    hellos,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
