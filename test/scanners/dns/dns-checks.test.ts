import test from 'ava';
import type { Answer } from 'dns-packet';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { caa } from '../../../scanners/dns/checks/caa.ts';
import { danglingCname } from '../../../scanners/dns/checks/dangling-cname.ts';
import { dmarc } from '../../../scanners/dns/checks/dmarc.ts';
import { dnssec } from '../../../scanners/dns/checks/dnssec.ts';
import { spf } from '../../../scanners/dns/checks/spf.ts';
import { subdomains } from '../../../scanners/dns/checks/subdomains.ts';
import { wildcard } from '../../../scanners/dns/checks/wildcard.ts';
import { zoneTransferCheck } from '../../../scanners/dns/checks/zone-transfer.ts';
import { startDnsServer, type TestDnsServer } from '../../_helpers/targets/dns-server.ts';
import { domainTarget } from '../../_helpers/targets/scan-target.ts';

const a = (name: string, data: string): Answer => ({ type: 'A', name, ttl: 60, data });
const txt = (name: string, data: string): Answer => ({ type: 'TXT', name, ttl: 60, data });
const ns = (name: string, data: string): Answer => ({ type: 'NS', name, ttl: 60, data });
const cname = (name: string, data: string): Answer => ({ type: 'CNAME', name, ttl: 60, data });

let server: TestDnsServer;

test.before(async () => {
  server = await startDnsServer([
    {
      // Everything done right.
      name: 'good.test',
      signed: true,
      records: [
        ns('good.test', 'ns1.good.test'), a('ns1.good.test', '127.0.0.1'), a('good.test', '127.0.0.1'), a('www.good.test', '127.0.0.1'),
        cname('alias.good.test', 'www.good.test'),
        txt('good.test', 'v=spf1 ip4:192.0.2.1 include:spf.good.test -all'), txt('spf.good.test', 'v=spf1 ip4:192.0.2.2 -all'),
        txt('_dmarc.good.test', 'v=DMARC1; p=reject; rua=mailto:d@good.test'),
        { type: 'CAA', name: 'good.test', ttl: 60, data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
      ],
    },
    {
      // Every problem: +all, p=none, no CAA, AXFR open, unsigned, wildcard, dangling CNAME.
      name: 'bad.test',
      allowAxfr: true,
      records: [
        ns('bad.test', 'ns1.bad.test'), a('ns1.bad.test', '127.0.0.1'), a('bad.test', '127.0.0.1'), a('www.bad.test', '127.0.0.5'),
        a('*.bad.test', '127.0.0.9'), cname('shop.bad.test', 'old-shop.cloud.test'),
        txt('bad.test', 'v=spf1 +all'), txt('_dmarc.bad.test', 'v=DMARC1; p=none'),
      ],
    },
    { name: 'cloud.test', records: [a('live.cloud.test', '127.0.0.1')] },
    { name: 'neutral.test', records: [txt('neutral.test', 'v=spf1 a ?all')] },
    {
      name: 'lookups.test',
      records: [
        txt('lookups.test', `v=spf1 ${Array.from({ length: 6 }, (_, i) => `include:i${i}.lookups.test`).join(' ')} -all`),
        ...Array.from({ length: 6 }, (_, i) => txt(`i${i}.lookups.test`, 'v=spf1 a mx -all')),
      ],
    },
    { name: 'bare.test', records: [a('bare.test', '127.0.0.1')] },
    // Signed, with a key set too large for its UDP answers.
    { name: 'bigkeys.test', signed: true, truncateDnskeyOverUdp: true, records: [a('bigkeys.test', '127.0.0.1')] },
  ]);
});
test.after.always(() => server?.close());

async function run(check: ScannerCheck, domain: string, options: Record<string, unknown> = {}) {
  const attempt = await runCheck(check, domainTarget(domain), {
    timeoutMs: 30_000,
    options: { resolvers: [server.address], dns_timeout_ms: 3000, axfr_port: server.port, ...options },
  });
  if (attempt.status !== 'completed') throw new Error(`${check.id}: ${attempt.status} ${attempt.error}`);
  return attempt.findings;
}

test('spf: +all is reported with the record as evidence', async (t) => {
  const [f] = await run(spf, 'bad.test');
  t.regex(f!.title, /\+all/);
  t.deepEqual(f!.evidence!.records, ['v=spf1 +all']);
});

test('spf: ?all, more than 10 lookups, and no record at all are reported', async (t) => {
  t.regex((await run(spf, 'neutral.test'))[0]!.title, /\?all/);
  const [many] = await run(spf, 'lookups.test');
  t.is(many!.evidence!.lookups, 18); // 6 includes + 6 × (a + mx)
  t.is((await run(spf, 'bare.test'))[0]!.title, 'No SPF record');
});

test('spf: a strict record within the lookup limit is silent', async (t) => {
  t.deepEqual(await run(spf, 'good.test'), []);
});

test('dmarc: p=none and a missing record are reported; p=reject is silent', async (t) => {
  const [weak] = await run(dmarc, 'bad.test');
  t.is(weak!.evidence!.policy, 'none');
  t.is((await run(dmarc, 'bare.test'))[0]!.title, 'No DMARC record');
  t.deepEqual(await run(dmarc, 'good.test'), []);
});

test('caa: missing CAA is reported; a CAA record is silent', async (t) => {
  t.deepEqual((await run(caa, 'bad.test'))[0]!.evidence!.names_queried, ['bad.test']);
  t.deepEqual(await run(caa, 'good.test'), []);
});

test('zone-transfer: an open AXFR is reported with what was transferred; a refusing server is silent', async (t) => {
  const [f, ...rest] = await run(zoneTransferCheck, 'bad.test');
  t.is(rest.length, 0);
  t.is(f!.location, 'ns1.bad.test');
  t.is(f!.evidence!.record_count, 10); // SOA + 8 records + closing SOA, over two TCP messages
  t.true((f!.evidence!.names as string[]).includes('shop.bad.test'));
  t.deepEqual(await run(zoneTransferCheck, 'good.test'), []);
  t.true(server.queries.some((q) => q.type === 'AXFR' && q.name === 'good.test'));
});

test('dangling-cname: a CNAME to a name that is NXDOMAIN is reported; one to a live name is not', async (t) => {
  const [f] = await run(danglingCname, 'shop.bad.test');
  t.is(f!.evidence!.cname, 'old-shop.cloud.test');
  t.deepEqual(f!.evidence!.target_lookup, { A: 'nxdomain', AAAA: 'nxdomain' });
  t.deepEqual(await run(danglingCname, 'alias.good.test'), []);
  // With include_subdomains the wordlist names are checked too.
  const viaWordlist = await run(danglingCname, 'bad.test', { include_subdomains: true, subdomain_wordlist: ['shop', 'www'] });
  t.deepEqual(viaWordlist.map((x) => x.location), ['shop.bad.test']);
});

test('dnssec: a truncated UDP answer is asked again over TCP, so a signed zone with a large key set is not reported', async (t) => {
  t.deepEqual(await run(dnssec, 'bigkeys.test'), []);
  t.true(server.queries.some((q) => q.name === 'bigkeys.test' && q.type === 'DNSKEY' && (q as { tcp?: boolean }).tcp === true), 'the DNSKEY question went over TCP');
});

test('dnssec: an unsigned zone is reported; a zone with DNSKEY is silent', async (t) => {
  const [f] = await run(dnssec, 'www.bad.test');
  t.is(f!.location, 'bad.test');
  t.deepEqual(await run(dnssec, 'good.test'), []);
});

test('wildcard: a random name that resolves is reported; NXDOMAIN is silent', async (t) => {
  const [f] = await run(wildcard, 'bad.test');
  t.deepEqual(f!.evidence!.addresses, ['127.0.0.9']);
  t.deepEqual(await run(wildcard, 'good.test'), []);
});

test('subdomains: only with include_subdomains; wildcard answers are not counted as discoveries', async (t) => {
  t.deepEqual(await run(subdomains, 'good.test'), []);
  const [f] = await run(subdomains, 'bad.test', { include_subdomains: true, subdomain_wordlist: ['www', 'nothere', 'shop'] });
  t.deepEqual(f!.evidence!.subdomains, [{ name: 'www.bad.test', addresses: ['127.0.0.5'] }]);
  t.deepEqual(await run(subdomains, 'bare.test', { include_subdomains: true, subdomain_wordlist: ['www', 'mail'] }), []);
});
