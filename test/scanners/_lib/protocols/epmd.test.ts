import test from 'ava';
import plugin from '../../../../scanners/port/index.ts';
import { parseEpmdNames, probeEpmd } from '../../../../scanners/_lib/protocols/epmd.ts';
import { runCheck } from '../../../../core/author-kit/index.ts';
import { serviceAvailable } from '../../../_helpers/harness/local-service.ts';

// epmd runs with this machine's RabbitMQ (CI has it).
const epmdUp = await serviceAvailable('epmd (RabbitMQ)', 'epmd://127.0.0.1:4369');

const o = { timeoutMs: 3000, authChecks: true, loginUsers: [] };
const target = { assetId: 'ast_x', assetType: 'ip' as const, name: '127.0.0.1', host: '127.0.0.1' };

test('NAMES answers are parsed; anything else is not epmd', (t) => {
  const answer = Buffer.concat([Buffer.from([0, 0, 0x11, 0x11]), Buffer.from('name rabbit at port 25672\nname couchdb at port 9100\n')]);
  t.deepEqual(parseEpmdNames(answer), { epmdPort: 4369, nodes: [{ name: 'rabbit', port: 25672 }, { name: 'couchdb', port: 9100 }] });
  t.deepEqual(parseEpmdNames(Buffer.from([0, 0, 0x11, 0x11])), { epmdPort: 4369, nodes: [] });
  t.is(parseEpmdNames(Buffer.from('HTTP/1.1 200 OK\r\n')), null);
  t.is(parseEpmdNames(Buffer.from([0, 0, 0x11, 0x11, 0x41])), null);
});

(epmdUp ? test : test.skip)('epmd lists the RabbitMQ node; the node\'s distribution port is named after it; findings for this host only', async (t) => {
  const info = await probeEpmd('127.0.0.1', 4369, o);
  t.is(info?.service, 'epmd');
  const rabbit = info?.nodes?.find((n) => n.name === 'rabbit');
  t.truthy(rabbit, JSON.stringify(info));
  const attempt = await runCheck(plugin.checks[0]!, target, { options: { ports: `4369,${rabbit!.port}` }, timeoutMs: 30_000 });
  t.is(attempt.status, 'completed', attempt.error);
  const epmd = attempt.findings.find((f) => f.location === '127.0.0.1:4369/tcp#epmd');
  t.regex(epmd?.title ?? '', /^Erlang port mapper lists its nodes \(.*rabbit.*\), reachable on this host only$/);
  t.is(epmd?.cvss_vector, 'CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N');
  t.is(attempt.findings.find((f) => f.location === `127.0.0.1:${rabbit!.port}/tcp`)?.title, `Open port ${rabbit!.port}/tcp (erlang-dist)`);
});
