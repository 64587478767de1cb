import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { getServers } from 'node:dns';
import { connect, isIP } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, RecordType } from 'dns-packet';
import type { CheckContext } from '../../core/plugin-api/index.ts';
import { addressOnly } from '../_lib/address-only.mjs';

export interface DnsServerAddress {
  host: string;
  port: number;
}

/** `1.2.3.4`, `1.2.3.4:5353`, `[::1]:53`, `::1` → host and port. */
export function parseServer(value: string): DnsServerAddress {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (v6) return { host: v6[1]!, port: Number(v6[2] ?? 53) };
  if (isIP(value) === 6) return { host: value, port: 53 };
  const [host, port] = value.split(':');
  return { host: host!, port: Number(port ?? 53) };
}

/**
 * The resolvers of this scan: the `resolvers` option (`ip` or `ip:port`), else the
 * system's. A resolver named in the scan's options is held to the deny list (through
 * `ctx.resolve`), so a scan cannot turn the DNS checks on a denied address; the
 * system's resolvers are the operator's own and always used.
 */
export async function resolversOf(ctx: CheckContext): Promise<string[]> {
  const configured = ctx.options.resolvers;
  if (!Array.isArray(configured) || !configured.length) return getServers();
  for (const server of configured) await ctx.resolve(parseServer(String(server)).host, { outsideScope: true });
  return configured.map(String);
}

export function timeoutOf(ctx: CheckContext): number {
  return Math.min(Number(ctx.options.dns_timeout_ms ?? 2000), ctx.timeoutMs);
}

/** A node:dns Resolver on the scan's resolvers (A/AAAA/TXT/CAA/NS/CNAME). */
export async function resolverFor(ctx: CheckContext): Promise<Resolver> {
  const r = new Resolver({ timeout: timeoutOf(ctx), tries: 2 });
  r.setServers(await resolversOf(ctx));
  ctx.signal.addEventListener('abort', () => r.cancel(), { once: true });
  return r;
}

/** What a lookup error means: NXDOMAIN and NODATA are answers; everything else is not knowing. */
export function outcomeOf(err: unknown): 'nxdomain' | 'nodata' | 'error' {
  const code = (err as { code?: string })?.code;
  return code === 'ENOTFOUND' ? 'nxdomain' : code === 'ENODATA' ? 'nodata' : 'error';
}

/** Resolves, mapping NXDOMAIN/NODATA to an empty list and rethrowing real failures. */
export async function resolveOrEmpty<T>(lookup: Promise<T[]>): Promise<T[]> {
  try {
    return await lookup;
  } catch (err) {
    if (outcomeOf(err) !== 'error') return [];
    throw err;
  }
}

export interface RawAnswer {
  rcode: string;
  packet: DecodedPacket;
}

function queryPacket(id: number, name: string, type: RecordType, dnssecOk: boolean) {
  return {
    type: 'query' as const,
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: dnssecOk ? dnsPacket.DNSSEC_OK : 0 } as unknown as Answer],
  };
}

/**
 * One query with dns-packet (for DO-bit/DNSSEC types node:dns cannot ask): over UDP, and
 * over TCP again when the UDP answer came back truncated (TC), as resolvers do (RFC 7766):
 * a truncated DNSKEY answer holds no keys, and judging it would report a signed zone unsigned.
 */
export async function rawQuery(ctx: CheckContext, server: DnsServerAddress, name: string, type: RecordType, dnssecOk = false): Promise<RawAnswer> {
  const answer = await udpQuery(ctx, server, name, type, dnssecOk);
  if (!((answer.packet.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE)) return answer;
  ctx.log('INFO', `${name} ${type}: the UDP answer from ${server.host}:${server.port} was truncated; asked again over TCP`);
  return tcpQuery(ctx, server, name, type, dnssecOk);
}

function udpQuery(ctx: CheckContext, server: DnsServerAddress, name: string, type: RecordType, dnssecOk: boolean): Promise<RawAnswer> {
  addressOnly(server.host);
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    const id = Math.floor(Math.random() * 65535);
    const query = dnsPacket.encode(queryPacket(id, name, type, dnssecOk));
    const done = (fn: () => void) => {
      clearTimeout(timer);
      socket.close();
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new Error(`no answer from ${server.host}:${server.port} for ${name} ${type}`))), timeoutOf(ctx));
    socket.on('message', (msg) => {
      const packet = dnsPacket.decode(msg);
      if (packet.id !== id) return;
      done(() => resolve({ rcode: (packet as unknown as { rcode: string }).rcode, packet }));
    });
    socket.on('error', (err) => done(() => reject(err)));
    socket.send(query, server.port, server.host);
  });
}

/** One query over TCP: a length-prefixed message each way (RFC 1035 §4.2.2). */
function tcpQuery(ctx: CheckContext, server: DnsServerAddress, name: string, type: RecordType, dnssecOk: boolean): Promise<RawAnswer> {
  addressOnly(server.host);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const id = Math.floor(Math.random() * 65535);
    let buf = Buffer.alloc(0);
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`no answer over TCP from ${server.host}:${server.port} for ${name} ${type}`))), timeoutOf(ctx));
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(queryPacket(id, name, type, dnssecOk))));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      const packet = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      if (packet.id !== id) return finish(() => reject(new Error(`a TCP answer from ${server.host}:${server.port} for another query`)));
      finish(() => resolve({ rcode: (packet as unknown as { rcode: string }).rcode, packet }));
    });
    socket.on('end', () => finish(() => reject(new Error(`${server.host}:${server.port} closed the TCP connection without an answer for ${name} ${type}`))));
    socket.on('error', (err) => finish(() => reject(err)));
  });
}

export interface ZoneTransfer {
  /** `transferred` when the server sent the zone between two SOAs. */
  status: 'transferred' | 'refused';
  rcode: string;
  records: Answer[];
}

/**
 * AXFR over TCP (RFC 5936): length-prefixed messages until the closing SOA. Any rcode
 * but NOERROR, or an answer without the opening SOA, is a refusal.
 */
export function zoneTransfer(ctx: CheckContext, server: DnsServerAddress, zone: string): Promise<ZoneTransfer> {
  addressOnly(server.host);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const records: Answer[] = [];
    let buf = Buffer.alloc(0);
    let soaSeen = 0;
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`AXFR from ${server.host}:${server.port} timed out`))), Math.max(timeoutOf(ctx), 3000));
    socket.on('connect', () => socket.write(dnsPacket.streamEncode({ type: 'query', id: 1, flags: 0, questions: [{ type: 'AXFR', name: zone }] })));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const packet = dnsPacket.decode(buf.subarray(2, 2 + len));
        buf = buf.subarray(2 + len);
        const rcode = (packet as unknown as { rcode: string }).rcode;
        if (rcode !== 'NOERROR' || (!records.length && packet.answers?.[0]?.type !== 'SOA')) {
          return finish(() => resolve({ status: 'refused', rcode, records: [] }));
        }
        for (const a of packet.answers ?? []) {
          records.push(a);
          if (a.type === 'SOA' && ++soaSeen === 2) return finish(() => resolve({ status: 'transferred', rcode, records }));
        }
        if (records.length > 100_000) return finish(() => resolve({ status: 'transferred', rcode, records }));
      }
    });
    socket.on('end', () => finish(() => resolve({ status: 'refused', rcode: records.length ? 'INCOMPLETE' : 'CLOSED', records: [] })));
    socket.on('error', (err) => finish(() => reject(err)));
  });
}

/** The domain of a target (domain assets only; URL assets use their host name). */
export function domainOf(ctx: CheckContext, target: { assetType: string; name: string; host?: string }): string | null {
  const name = (target.assetType === 'domain' ? target.name : target.host ?? '').toLowerCase().replace(/\.$/, '');
  if (!name || isIP(name)) return null;
  if (!ctx.inScope(name)) {
    ctx.log('WARN', `${name} is outside the scan scope`);
    return null;
  }
  return name;
}
