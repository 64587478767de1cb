import test from 'ava';
import { ImportFileError } from '../../../core/imports/import-file-error.ts';
import { isSkipped, type ImportedResult } from '../../../core/imports/import-result.ts';
import { readNmap } from '../../../core/imports/nmap-reader.ts';
import { readAll } from './_read.ts';
import { nmapXml, startNmapTarget, withTool, type NmapTarget } from './_tools.ts';

const withNmap = withTool('nmap', ['--version'], 'nmap XML reader tests');

let target: NmapTarget;
let xml: { services: string; scripts: string };
test.before(async () => {
  if (withNmap === test.skip) return;
  target = await startNmapTarget();
  xml = await nmapXml(target);
});
test.after.always(async () => target?.close());

withNmap('service detection: the open port with the service, product, version and CPE nmap found', async (t) => {
  const { results } = await readAll(readNmap, xml.services, 97);
  t.is(results.length, 1);
  const port = results[0] as ImportedResult;
  t.like(port, { checkId: 'nmap:open-port', where: '/nmaprun/host[1]/ports/port[1]', targets: ['127.0.0.1'], initialStatus: 'open' });
  t.is(port.title, `Open port ${target.sshPort}/tcp: ssh (OpenSSH 7.2p2 Ubuntu 4ubuntu2.8 Ubuntu Linux; protocol 2.0)`);
  t.deepEqual(port.score, { severity: 'info', cvss: 0, cvssVector: '', basis: 'severity' });
  t.like(port.evidence, { host: '127.0.0.1', port: target.sshPort, protocol: 'tcp', state: 'open', service: 'ssh', product: 'OpenSSH', service_method: 'probed', tool: 'nmap' });
  t.true((port.evidence.cpe as string[]).includes('cpe:/a:openbsd:openssh:7.2p2'));
  t.true(port.observedAt! > Date.parse('2020-01-01') && port.observedAt! <= Date.now());
});

withNmap('NSE scripts: one result per output, one per vulnerable vulns-library entry with its CVE', async (t) => {
  const { results } = await readAll(readNmap, xml.scripts, 64);
  const found = results.filter((r): r is ImportedResult => !isSkipped(r));
  const byCheck = new Map(found.map((r) => [r.checkId, r]));
  t.like(byCheck.get('nmap:open-port'), { title: `Open port ${target.httpPort}/tcp` }, 'without -sV nmap names no service for a port it does not know');
  const title = byCheck.get('nmap:http-title')!;
  t.like(title, { title: `http-title on ${target.httpPort}/tcp`, description: 'Rampart nmap sample' });
  t.like(title.evidence, { script: 'http-title', output: 'Rampart nmap sample', port: target.httpPort });
  t.regex(byCheck.get('nmap:http-git')!.description, /Git repository found!/);
  const vuln = byCheck.get('nmap:http-vuln-cve2011-3192')!;
  t.like(vuln, { title: 'CVE-2011-3192: Apache byterange filter DoS' });
  t.regex(vuln.where, /^\/nmaprun\/host\[1\]\/ports\/port\[1\]\/script\[\d\]\/table\[1\]$/);
  t.deepEqual(vuln.score, { severity: 'high', cvss: 7, cvssVector: '', basis: 'severity' }, 'VULNERABLE without scores or risk factor: the floor of high');
  t.like(vuln.evidence, { vuln_id: 'CVE-2011-3192', state: 'VULNERABLE', cve_ids: ['CVE-2011-3192'], disclosure: '2011-08-19' });
  t.true(vuln.references.includes('https://nvd.nist.gov/vuln/detail/CVE-2011-3192'));
  t.true(vuln.tags.includes('CVE-2011-3192'));
  t.is(new Set(found.map((r) => `${r.checkId} ${r.location}`)).size, found.length, 'each result its own identity (check and location)');
});

withNmap('a report cut short or broken is refused at the line and column where it broke', async (t) => {
  const cut = xml.scripts.slice(0, xml.scripts.indexOf('</host>'));
  const truncated = await t.throwsAsync(readAll(readNmap, cut, 128), { instanceOf: ImportFileError });
  t.regex(truncated!.where!, /^line \d+, column \d+$/);
  t.regex(truncated!.message, /not well-formed XML \(unclosed tag/);
  const broken = xml.scripts.replace('</ports>', '</port>');
  const line = xml.scripts.slice(0, xml.scripts.indexOf('</ports>')).split('\n').length;
  const err = await t.throwsAsync(readAll(readNmap, broken), { instanceOf: ImportFileError });
  t.true(err!.where!.startsWith(`line ${line}, column`), err!.where!);
  const other = await t.throwsAsync(readAll(readNmap, '<?xml version="1.0"?>\n<report><host/></report>'), { instanceOf: ImportFileError });
  t.is(other!.where, 'line 1');
  t.regex(other!.message, /root element is <report>/);
});

test('closed ports, failed scripts and NOT VULNERABLE entries are skipped; a CVSSv3 score decides', async (t) => {
  const doc = `<?xml version="1.0"?><nmaprun scanner="nmap" version="7.93" start="1700000000"><host><address addr="10.0.0.5" addrtype="ipv4"/><hostnames><hostname name="DB.example" type="PTR"/></hostnames><ports>
<port protocol="tcp" portid="23"><state state="closed" reason="conn-refused"/></port>
<port protocol="tcp" portid="443"><state state="open" reason="syn-ack"/><service name="https" method="table" conf="3"/>
<script id="ssl-x" output="ERROR: Script execution failed (use -d to debug)"/>
<script id="smb-vuln-x" output="VULNERABLE:&#xa;  Remote code execution&#xa;    State: VULNERABLE&#xa;    Risk factor: High  CVSSv3: 9.8 (CRITICAL) (CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H)"><table key="CVE-2017-7494"><elem key="title">Remote code execution</elem><elem key="state">VULNERABLE</elem><table key="scores"><elem key="CVSSv3">9.8 (CRITICAL) (CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H)</elem></table></table><table key="NMAP-1"><elem key="title">Other</elem><elem key="state">NOT VULNERABLE</elem></table></script>
</port></ports></host></nmaprun>`;
  const { results } = await readAll(readNmap, doc, 50);
  t.deepEqual(results.filter(isSkipped).map((r) => r.skipped), ['port closed', 'script error', 'vulns state NOT VULNERABLE']);
  const [open, vuln] = results.filter((r): r is ImportedResult => !isSkipped(r));
  t.deepEqual(open!.targets, ['db.example', '10.0.0.5']);
  t.is(open!.observedAt, 1_700_000_000_000);
  t.regex(open!.description, /nmap's guess from the port number/);
  t.like(vuln!.score, { severity: 'critical', cvss: 9.8, cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', basis: 'vector' });
  t.like(vuln!.evidence, { risk_factor: 'High', scores: 'CVSSv3: 9.8 (CRITICAL) (CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H)' });
});

test('entities a DTD declares are neither fetched nor expanded (no XXE, no entity bombs)', async (t) => {
  for (const dtd of ['<!ENTITY x SYSTEM "file:///etc/passwd">', '<!ENTITY x "lol">']) {
    const doc = `<?xml version="1.0"?>\n<!DOCTYPE nmaprun [${dtd}]>\n<nmaprun><host><address addr="10.0.0.1" addrtype="ipv4"/><ports><port protocol="tcp" portid="80"><state state="open"/><script id="x" output="&x;"/></port></ports></host></nmaprun>`;
    const err = await t.throwsAsync(readAll(readNmap, doc), { instanceOf: ImportFileError });
    t.regex(err!.message, /undefined entity/i);
    t.regex(err!.where!, /^line 3, column \d+$/);
  }
});
