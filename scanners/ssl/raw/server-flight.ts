import { alertName } from './tls-names.ts';

/** RFC 8446 4.1.3: a ServerHello with this random is a HelloRetryRequest (SHA-256 of "HelloRetryRequest"). */
const HRR_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');
/** Largest record a TLS peer may send (2^14 plus compression/encryption expansion). */
const MAX_RECORD = 16_384 + 2_048;
/** A ServerHello with every extension a real server sends fits easily; more is not a ServerHello. */
const MAX_HANDSHAKE = 65_536;

/** What the server's first flight said. `version` is the negotiated one (supported_versions wins). */
export type ServerFlight =
  | { kind: 'server_hello'; version: number; legacyVersion: number; cipherSuite: number; keyShareGroup: number | null }
  | { kind: 'hello_retry_request'; version: number; cipherSuite: number; selectedGroup: number | null }
  | { kind: 'sslv2_server_hello'; cipherKinds: number[] }
  | { kind: 'alert'; level: number; description: number; name: string }
  | { kind: 'sslv2_error'; code: number }
  | { kind: 'not_tls'; reason: string };

class Malformed extends Error {}

/** A bounds-checked reader: any read past the end throws Malformed (caught by the parser). */
class Reader {
  constructor(private readonly buf: Buffer, private pos = 0) {}
  get left(): number {
    return this.buf.length - this.pos;
  }
  bytes(n: number): Buffer {
    if (n < 0 || n > this.left) throw new Malformed(`truncated: wanted ${n} bytes, ${this.left} left`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u8(): number {
    return this.bytes(1)[0]!;
  }
  u16(): number {
    return this.bytes(2).readUInt16BE(0);
  }
  vec8(): Buffer {
    return this.bytes(this.u8());
  }
  vec16(): Buffer {
    return this.bytes(this.u16());
  }
}

function parseServerHello(body: Buffer): ServerFlight {
  const r = new Reader(body);
  const legacyVersion = r.u16();
  const random = r.bytes(32);
  r.vec8(); // session id
  const cipherSuite = r.u16();
  r.u8(); // compression method
  let version = legacyVersion;
  let group: number | null = null;
  const hrr = random.equals(HRR_RANDOM);
  if (r.left) {
    const exts = new Reader(r.vec16());
    while (exts.left) {
      const type = exts.u16();
      const data = new Reader(exts.vec16());
      if (type === 0x002b) version = data.u16(); // supported_versions: the selected version
      else if (type === 0x0033) group = data.u16(); // key_share: selected group (HRR) or the server's share's group
    }
  }
  if (r.left) throw new Malformed('bytes after the ServerHello extensions');
  return hrr ? { kind: 'hello_retry_request', version, cipherSuite, selectedGroup: group } : { kind: 'server_hello', version, legacyVersion, cipherSuite, keyShareGroup: group };
}

function parseSslv2(record: Buffer): ServerFlight {
  const r = new Reader(record);
  const type = r.u8();
  if (type === 0) return { kind: 'sslv2_error', code: r.u16() };
  if (type !== 4) throw new Malformed(`SSLv2 message type ${type} where SERVER-HELLO was expected`);
  r.u8(); // session id hit
  r.u8(); // certificate type
  const version = r.u16();
  if (version !== 0x0002) throw new Malformed(`SSLv2 SERVER-HELLO with version 0x${version.toString(16)}`);
  const certLength = r.u16();
  const specsLength = r.u16();
  r.u16(); // connection id length
  r.bytes(certLength);
  const specs = r.bytes(specsLength);
  if (specsLength % 3) throw new Malformed('SSLv2 cipher specs not a multiple of 3 bytes');
  const cipherKinds: number[] = [];
  for (let i = 0; i < specs.length; i += 3) cipherKinds.push((specs[i]! << 16) | (specs[i + 1]! << 8) | specs[i + 2]!);
  return { kind: 'sslv2_server_hello', cipherKinds };
}

/**
 * Incremental parser of a server's first flight. Feed it every TCP read with `push`; it
 * returns the decision once one is possible (ServerHello, HelloRetryRequest, Alert, SSLv2
 * answer) and null while more bytes are needed. Records may be split across reads and the
 * ServerHello across records. Anything malformed is `not_tls`: never an exception.
 */
export class ServerFlightParser {
  private buf = Buffer.alloc(0);
  private handshake = Buffer.alloc(0);
  private result: ServerFlight | null = null;

  /** @param acceptSslv2 the client sent an SSLv2 CLIENT-HELLO, so a 2-byte SSLv2 header is legal. */
  constructor(private readonly acceptSslv2 = false) {}

  push(chunk: Buffer): ServerFlight | null {
    if (this.result) return this.result;
    this.buf = Buffer.concat([this.buf, chunk]);
    try {
      this.result = this.step();
    } catch (err) {
      this.result = { kind: 'not_tls', reason: err instanceof Malformed ? err.message : `parser error: ${(err as Error).message}` };
    }
    return this.result;
  }

  private step(): ServerFlight | null {
    for (;;) {
      if (this.buf.length < 2) return null;
      const first = this.buf[0]!;
      if (first & 0x80 && this.acceptSslv2) {
        const len = ((first & 0x7f) << 8) | this.buf[1]!;
        if (this.buf.length < 2 + len) return null;
        return parseSslv2(this.buf.subarray(2, 2 + len));
      }
      if (this.buf.length < 5) return first === 21 || first === 22 ? null : this.notTls(first);
      const [type, major] = [first, this.buf[1]!];
      const len = this.buf.readUInt16BE(3);
      if ((type !== 21 && type !== 22) || major !== 3) return this.notTls(first);
      if (len === 0 || len > MAX_RECORD) throw new Malformed(`record length ${len}`);
      if (this.buf.length < 5 + len) return null;
      const fragment = this.buf.subarray(5, 5 + len);
      this.buf = this.buf.subarray(5 + len);
      if (type === 21) {
        if (len < 2) throw new Malformed('short alert');
        return { kind: 'alert', level: fragment[0]!, description: fragment[1]!, name: alertName(fragment[1]!) };
      }
      this.handshake = Buffer.concat([this.handshake, fragment]);
      const decided = this.handshakeMessage();
      if (decided) return decided;
    }
  }

  private handshakeMessage(): ServerFlight | null {
    while (this.handshake.length >= 4) {
      const type = this.handshake[0]!;
      const len = this.handshake.readUIntBE(1, 3);
      if (len > MAX_HANDSHAKE) throw new Malformed(`handshake message of ${len} bytes`);
      if (type === 0 && len === 0) {
        this.handshake = this.handshake.subarray(4); // HelloRequest: ignorable before the ServerHello
        continue;
      }
      if (type !== 2) throw new Malformed(`handshake type ${type} where ServerHello was expected`);
      if (this.handshake.length < 4 + len) return null;
      return parseServerHello(this.handshake.subarray(4, 4 + len));
    }
    return null;
  }

  private notTls(first: number): ServerFlight {
    return { kind: 'not_tls', reason: `first byte 0x${first.toString(16).padStart(2, '0')} is not a TLS handshake or alert record` };
  }
}
