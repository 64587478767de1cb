/**
 * The few AMQP 0-9-1 frames a login check needs (connection class only), written and
 * read by hand: frame = type, channel, size, payload, 0xCE; a method payload starts
 * with its class and method ids.
 */

export const PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]); // "AMQP" 0-9-1
const FRAME_END = 0xce;

export const CONNECTION = { start: 10, startOk: 11, tune: 30, tuneOk: 31, open: 40, openOk: 41, close: 50, closeOk: 51 } as const;

/** Size of the first whole frame in `buf`, or of a protocol header the server sent back (8 bytes). */
export function amqpFramer(buf: Buffer): number {
  if (buf.length >= 4 && buf.subarray(0, 4).toString('latin1') === 'AMQP') return buf.length >= 8 ? 8 : 0;
  if (buf.length < 7) return 0;
  if (buf[0]! < 1 || buf[0]! > 8) throw new Error('not AMQP: bad frame type');
  const size = buf.readUInt32BE(3);
  if (size > 1 << 20) throw new Error('not AMQP: frame too large');
  if (buf.length < size + 8) return 0;
  if (buf[size + 7] !== FRAME_END) throw new Error('not AMQP: bad frame end');
  return size + 8;
}

export interface Method {
  classId: number;
  methodId: number;
  args: Buffer;
}

/** The method in a frame, or null for other frame types (heartbeats…). */
export function methodOf(frame: Buffer): Method | null {
  if (frame[0] !== 1 || frame.length < 12) return null;
  return { classId: frame.readUInt16BE(7), methodId: frame.readUInt16BE(9), args: frame.subarray(11, frame.length - 1) };
}

export function methodFrame(classId: number, methodId: number, args: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head[0] = 1;
  head.writeUInt16BE(0, 1);
  head.writeUInt32BE(args.length + 4, 3);
  head.writeUInt16BE(classId, 7);
  head.writeUInt16BE(methodId, 9);
  return Buffer.concat([head, args, Buffer.from([FRAME_END])]);
}

export const shortstr = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)]);
export const longstr = (b: Buffer | string) => {
  const data = Buffer.isBuffer(b) ? b : Buffer.from(b);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
};
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** A field table of strings, booleans and nested tables (all a client's properties need). */
export function table(fields: Record<string, string | boolean | Record<string, boolean>>): Buffer {
  const parts = Object.entries(fields).map(([k, v]) => {
    if (typeof v === 'string') return Buffer.concat([shortstr(k), Buffer.from('S'), longstr(v)]);
    if (typeof v === 'boolean') return Buffer.concat([shortstr(k), Buffer.from('t'), Buffer.from([v ? 1 : 0])]);
    return Buffer.concat([shortstr(k), Buffer.from('F'), table(v)]);
  });
  return longstr(Buffer.concat(parts));
}

/**
 * Reads a field table's top-level string and boolean values; nested tables and arrays
 * are skipped. Stops at a type it does not know (the values before it are kept).
 */
export function readTable(buf: Buffer, at: number): { values: Record<string, string>; end: number } {
  const end = at + 4 + buf.readUInt32BE(at);
  const values: Record<string, string> = {};
  let i = at + 4;
  const fixed: Record<string, number> = { t: 1, b: 1, B: 1, s: 2, u: 2, U: 2, I: 4, i: 4, f: 4, l: 8, L: 8, d: 8, T: 8, D: 5, V: 0 };
  while (i < end) {
    const keyLen = buf[i]!;
    const key = buf.subarray(i + 1, i + 1 + keyLen).toString('utf8');
    const type = String.fromCharCode(buf[i + 1 + keyLen]!);
    i += 2 + keyLen;
    if (type === 'S' || type === 'x' || type === 'F' || type === 'A') {
      const len = buf.readUInt32BE(i);
      if (type === 'S') values[key] = buf.subarray(i + 4, i + 4 + len).toString('utf8');
      i += 4 + len;
    } else if (type in fixed) {
      if (type === 't') values[key] = buf[i] ? 'true' : 'false';
      i += fixed[type]!;
    } else break;
  }
  return { values, end };
}

/** Connection.Start's arguments: protocol version, server properties, mechanisms. */
export function parseStart(args: Buffer): { version: string; properties: Record<string, string>; mechanisms: string[] } {
  const { values, end } = readTable(args, 2);
  const mechLen = args.readUInt32BE(end);
  const mechanisms = args.subarray(end + 4, end + 4 + mechLen).toString('utf8').split(/\s+/).filter(Boolean);
  return { version: `${args[0]}-${args[1]}`, properties: values, mechanisms };
}

/** Connection.Close's reply code and text. */
export function parseClose(args: Buffer): { code: number; text: string } {
  return { code: args.readUInt16BE(0), text: args.subarray(3, 3 + args[2]!).toString('utf8') };
}

export const frames = {
  startOk: (user: string, password: string) =>
    methodFrame(10, CONNECTION.startOk, Buffer.concat([
      table({ product: 'Rampart scanner', information: 'security check of default credentials', capabilities: { authentication_failure_close: true } }),
      shortstr('PLAIN'),
      longstr(Buffer.from(`\0${user}\0${password}`)),
      shortstr('en_US'),
    ])),
  tuneOk: (channelMax: number, frameMax: number) => methodFrame(10, CONNECTION.tuneOk, Buffer.concat([u16(channelMax), u32(frameMax), u16(0)])),
  open: (vhost: string) => methodFrame(10, CONNECTION.open, Buffer.concat([shortstr(vhost), shortstr(''), Buffer.from([0])])),
  close: () => methodFrame(10, CONNECTION.close, Buffer.concat([u16(200), shortstr('Goodbye'), u16(0), u16(0)])),
  closeOk: () => methodFrame(10, CONNECTION.closeOk, Buffer.alloc(0)),
};
