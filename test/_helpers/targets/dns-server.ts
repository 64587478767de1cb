import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, Question } from 'dns-packet';

/** One zone the test server is authoritative for. */
export interface TestZone {
  /** Apex, lower-case, e.g. `good.test`. */
  name: string;
  /** Records; names are absolute (`www.good.test`) and `*.good.test` is a wildcard. */
  records: Answer[];
  /** Answer AXFR over TCP (otherwise REFUSED). */
  allowAxfr?: boolean;
  /** Serve DNSKEY at the apex and an RRSIG next to every answer when the query has the DO bit. */
  signed?: boolean;
  /** Over UDP, answer DNSKEY queries truncated (TC set, no records), as a large key set would be. */
  truncateDnskeyOverUdp?: boolean;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for the scanner's `resolvers` option. */
  address: string;
  port: number;
  /** Queries received (name/type), to show that a check asked. */
  queries: Question[];
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, NXDOMAIN: 3, REFUSED: 5 } as const;

function zoneOf(zones: TestZone[], name: string): TestZone | undefined {
  return zones.filter((z) => name === z.name || name.endsWith(`.${z.name}`)).sort((a, b) => b.name.length - a.name.length)[0];
}

function soaOf(zone: TestZone): Answer {
  return zone.records.find((r) => r.type === 'SOA') ?? {
    type: 'SOA', name: zone.name, ttl: 300,
    data: { mname: `ns1.${zone.name}`, rname: `hostmaster.${zone.name}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 60 },
  };
}

function rrsig(owner: string, covered: string, zone: TestZone): Answer {
  const now = Math.floor(Date.now() / 1000);
  return { type: 'RRSIG', name: owner, ttl: 300, data: { typeCovered: covered, algorithm: 13, labels: owner.split('.').length, originalTTL: 300, expiration: now + 86400, inception: now - 3600, keyTag: 12345, signersName: zone.name, signature: Buffer.alloc(64, 7) } } as Answer;
}

/** Answers one question the way an authoritative server would (CNAME chased inside the served zones). */
function answer(zones: TestZone[], q: Question, dnssecOk: boolean): { rcode: number; answers: Answer[]; authorities: Answer[] } {
  const name = q.name.toLowerCase();
  const zone = zoneOf(zones, name);
  if (!zone) return { rcode: RCODE.REFUSED, answers: [], authorities: [] };
  const records = [...zone.records, ...(zone.signed ? [{ type: 'DNSKEY', name: zone.name, ttl: 300, data: { flags: 257, algorithm: 13, key: Buffer.alloc(64, 1) } } as Answer] : [])];
  if (!records.some((r) => r.type === 'SOA')) records.push(soaOf(zone));
  let own = records.filter((r) => r.name === name);
  if (!own.length && !records.some((r) => r.name.endsWith(`.${name}`))) {
    const wildcard = records.filter((r) => r.name === `*.${name.split('.').slice(1).join('.')}`);
    own = wildcard.map((r) => ({ ...r, name }));
  }
  if (!own.length) return { rcode: RCODE.NXDOMAIN, answers: [], authorities: [soaOf(zone)] };
  const sign = (list: Answer[]) => (zone.signed && dnssecOk ? [...list, ...[...new Set(list.map((r) => `${r.name}|${r.type}`))].map((k) => rrsig(k.split('|')[0]!, k.split('|')[1]!, zone))] : list);
  const matching = own.filter((r) => r.type === q.type);
  if (matching.length) return { rcode: RCODE.NOERROR, answers: sign(matching), authorities: [] };
  const cname = own.find((r) => r.type === 'CNAME');
  if (cname) {
    const target = String((cname as { data: string }).data).toLowerCase();
    const chased = zoneOf(zones, target) ? answer(zones, { ...q, name: target }, dnssecOk) : { rcode: RCODE.NOERROR, answers: [], authorities: [] };
    return { rcode: chased.rcode, answers: [...sign([cname]), ...chased.answers], authorities: chased.authorities };
  }
  return { rcode: RCODE.NOERROR, answers: [], authorities: [soaOf(zone)] };
}

function reply(zones: TestZone[], query: DecodedPacket, udp = false): Buffer {
  const q = query.questions?.[0];
  const dnssecOk = (query.additionals ?? []).some((a) => a.type === 'OPT' && (a as { flag_do?: boolean }).flag_do);
  const truncated = udp && q?.type === 'DNSKEY' && zoneOf(zones, q.name.toLowerCase())?.truncateDnskeyOverUdp === true;
  const r = q && !truncated ? answer(zones, q, dnssecOk) : { rcode: q ? RCODE.NOERROR : 1, answers: [], authorities: [] };
  return dnsPacket.encode({
    type: 'response',
    id: query.id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) | r.rcode,
    questions: query.questions,
    answers: r.answers,
    authorities: r.authorities,
  });
}

function axfr(zones: TestZone[], query: DecodedPacket): Buffer[] {
  const q = query.questions![0]!;
  const zone = zones.find((z) => z.name === q.name.toLowerCase());
  const header = { type: 'response' as const, id: query.id, questions: query.questions };
  if (!zone?.allowAxfr) return [dnsPacket.streamEncode({ ...header, flags: RCODE.REFUSED })];
  const soa = soaOf(zone);
  const body = zone.records.filter((r) => r.type !== 'SOA');
  // Two messages, so the scanner's read loop must keep going until the closing SOA.
  const half = Math.ceil(body.length / 2);
  return [
    dnsPacket.streamEncode({ ...header, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [soa, ...body.slice(0, half)] }),
    dnsPacket.streamEncode({ ...header, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [...body.slice(half), soa] }),
  ];
}

/**
 * A small authoritative DNS server on loopback (UDP and TCP on the same port): A/AAAA/TXT/
 * CAA/NS/MX/CNAME/SOA, wildcards, NXDOMAIN vs NODATA, fake DNSSEC (DNSKEY + RRSIG with DO)
 * and AXFR over TCP in two messages. Zones are invented names served only here.
 */
export async function startDnsServer(zones: TestZone[]): Promise<TestDnsServer> {
  const queries: Question[] = [];
  for (let attempt = 0; ; attempt++) {
    const udp: Socket = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    const tcp: Server = createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on('error', () => {});
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const len = buf.readUInt16BE(0);
          const query = dnsPacket.decode(buf.subarray(2, 2 + len));
          buf = buf.subarray(2 + len);
          const q = query.questions?.[0];
          if (q) queries.push({ ...q, tcp: true } as Question);
          if (q?.type === 'AXFR') for (const m of axfr(zones, query)) sock.write(m);
          else {
            const msg = reply(zones, query);
            const framed = Buffer.alloc(2 + msg.length);
            framed.writeUInt16BE(msg.length);
            msg.copy(framed, 2);
            sock.write(framed);
          }
        }
      });
    });
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!ok) {
      udp.close();
      if (attempt > 5) throw new Error('no free port for UDP+TCP DNS');
      continue;
    }
    udp.on('message', (msg, rinfo) => {
      try {
        const query = dnsPacket.decode(msg);
        if (query.questions?.[0]) queries.push(query.questions[0]);
        udp.send(reply(zones, query, true), rinfo.port, rinfo.address);
      } catch {
        // malformed datagrams are ignored, as real servers do
      }
    });
    return {
      address: `127.0.0.1:${port}`,
      port,
      queries,
      close: () => new Promise<void>((resolve) => {
        udp.close();
        tcp.close(() => resolve());
      }),
    };
  }
}
