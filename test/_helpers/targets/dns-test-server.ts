import dns2 from 'dns2';

const { Packet } = dns2;

export interface DnsTestServer {
  /** `127.0.0.1:PORT`, for `verification.resolvers` or `Resolver.setServers`. */
  address: string;
  /** TXT records by lower-case name; each record is one or more character-strings. Mutable; an empty list gives NOERROR without data. */
  txt: Map<string, string[][]>;
  close(): Promise<void>;
}

/**
 * An authoritative-looking DNS server on 127.0.0.1 (UDP only, so nothing binds to
 * other interfaces) answering TXT queries from `txt`; a name not in it is NXDOMAIN.
 */
export async function startDnsTestServer(): Promise<DnsTestServer> {
  const txt = new Map<string, string[][]>();
  const server = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question?.name.toLowerCase() ?? '';
    const records = txt.get(name);
    if (question?.type === Packet.TYPE.TXT && records) {
      for (const data of records) response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as never);
    } else if (!records) {
      response.header.rcode = 3;
    }
    send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    txt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
