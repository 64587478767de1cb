import { spawn, spawnSync } from 'node:child_process';
import { runCheck } from '../core/scan/run-check.ts';
import type { FindingReport } from '../core/plugin-api.ts';
import ssl from '../scanners/ssl/index.ts';
import { startTlsTarget } from '../test/_helpers/tls-target.ts';
import { createRsaTestCa } from '../test/_helpers/weak-certs.ts';
import { urlTarget } from '../test/_helpers/scan-target.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * The ssl scanner (all 11 checks, run one after the other as one worker would) next to
 * `sslscan` (Debian package) against the same loopback TLS server: TLS 1.0-1.3 enabled,
 * a self-signed, expired, RSA-1024, SHA-1 certificate. Reports the wall-time ratio and
 * whether both see the same protocol versions and certificate problems.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DAY = 86_400_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Runs sslscan without blocking the event loop (the TLS server under test lives in this process). */
function sslscan(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sslscan', args);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim() ?? null;

async function main(): Promise<void> {
  const which = spawnSync('sslscan', ['--version']);
  if (which.error) {
    console.error('sslscan is not installed (apt-get install -y sslscan); nothing to compare with.');
    process.exit(1);
  }
  const ca = await createRsaTestCa();
  const leaf = await ca.issue({ selfSigned: true, bits: 1024, hash: 'SHA-1', notBefore: new Date(Date.now() - 60 * DAY), notAfter: new Date(Date.now() - 5 * DAY) });
  const server = await startTlsTarget({ cert: leaf.certPem, key: leaf.keyPem, minVersion: 'TLSv1', ciphers: 'ALL:@SECLEVEL=0' });
  const target = urlTarget(`${server.url}/`);
  try {
    const oursMs: number[] = [];
    let findings: FindingReport[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const all: FindingReport[] = [];
      for (const check of ssl.checks) {
        const a = await runCheck(check, target, { timeoutMs: 30_000 });
        if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
        all.push(...a.findings.map((f) => ({ ...f, tags: [check.id] })));
      }
      oursMs.push(performance.now() - t0);
      findings = all;
    }
    const theirsMs: number[] = [];
    let xml = '';
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      xml = await sslscan(['--no-colour', '--show-certificate', '--xml=-', `127.0.0.1:${server.port}`]);
      theirsMs.push(performance.now() - t0);
    }

    // Protocol versions
    const ourProtocols = ((findings.find((f) => f.tags?.[0] === 'ssl:protocol-versions')?.evidence?.protocols_offered as string[]) ?? []).map((v) => (v === 'TLSv1' ? 'TLSv1.0' : v));
    const theirProtocols = [...xml.matchAll(/<protocol type="(\w+)" version="([\d.]+)" enabled="1"/g)].map((m) => `${m[1]!.toUpperCase().replace('TLS', 'TLSv').replace('SSL', 'SSLv')}${m[2]}`);
    // Certificate problems
    const ours = new Set(findings.map((f) => f.tags?.[0]));
    const ourCert = {
      expired: ours.has('ssl:cert-validity') && findings.some((f) => /expired/.test(f.title)),
      self_signed: ours.has('ssl:cert-self-signed'),
      weak_key: ours.has('ssl:cert-weak-key'),
      sha1_signature: ours.has('ssl:cert-signature'),
    };
    const theirCert = {
      expired: tag(xml, 'expired') === 'true',
      self_signed: tag(xml, 'self-signed') === 'true',
      weak_key: Number(/<pk [^>]*bits="(\d+)"/.exec(xml)?.[1] ?? 0) < 2048,
      sha1_signature: /sha1/i.test(tag(xml, 'signature-algorithm') ?? ''),
    };
    const theirCiphers = [...xml.matchAll(/<cipher status="\w+" sslversion="([^"]+)" bits="\d+" cipher="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    const weakFamilies = (names: string[]) => [...new Set(names.flatMap((n) => [/NULL-|_NULL_|-NULL/.test(n) && !/ADH|AECDH|anon/.test(n) ? 'NULL' : null, /ADH|AECDH|anon/i.test(n) ? 'anonymous' : null, /RC4/.test(n) ? 'RC4' : null, /DES-CBC3|3DES/.test(n) ? '3DES' : null, /EXP/.test(n) ? 'EXPORT' : null].filter((x): x is string => x !== null)))].sort();
    const ourWeak = ((findings.find((f) => f.tags?.[0] === 'ssl:weak-ciphers')?.evidence?.accepted as Array<{ family: string }>) ?? []).map((a) => a.family).sort();
    const theirWeak = weakFamilies(theirCiphers);
    const protocolsAgree = JSON.stringify([...ourProtocols].sort()) === JSON.stringify([...theirProtocols].sort());
    const certAgree = JSON.stringify(ourCert) === JSON.stringify(theirCert);
    const ours_ = median(oursMs);
    const theirs = median(theirsMs);
    const lines = [
      `Target: loopback HTTPS server, TLS 1.0-1.3, \`ALL:@SECLEVEL=0\`, self-signed expired RSA-1024 SHA-1 certificate. ${RUNS} runs each, medians.`,
      '',
      '| Tool | Median wall time | What it does |',
      '|---|---|---|',
      `| Rampart ssl scanner (11 checks, sequential, in-process) | ${ours_.toFixed(0)} ms | ${findings.length} findings; 15 TLS connections (4 versions, the 2 weak-cipher families this runtime can offer, 1 TLS 1.0 CBC, 6 certificate checks, 1 key exchange, 1 HTTPS request for HSTS) |`,
      `| sslscan ${/<document [^>]*version="([^"]+)"/.exec(xml)?.[1] ?? ''} (separate process) | ${theirs.toFixed(0)} ms | enumerates every cipher suite per version (${theirCiphers.length} accepted suites listed), groups, signature algorithms, heartbleed, renegotiation, compression |`,
      '',
      `**Time ratio (Rampart / sslscan): ${(ours_ / theirs).toFixed(2)}.** The scanner does far fewer handshakes (families, not every suite).`,
      '',
      `| Protocols and ciphers | Rampart | sslscan | Same? |`,
      '|---|---|---|---|',
      `| enabled | ${ourProtocols.join(', ') || '—'} | ${theirProtocols.join(', ') || '—'} | ${protocolsAgree ? 'yes' : '**no**'} |`,
      '',
      `| weak cipher families accepted | ${ourWeak.join(', ') || '—'} | ${theirWeak.join(', ') || '—'} | ${JSON.stringify(ourWeak) === JSON.stringify(theirWeak) ? 'yes' : '**no**'} |`,
      '',
      'SSLv2/SSLv3: Rampart reports them as not testable (Node 20 / OpenSSL 3.0 has no SSLv3 client); sslscan lists them only when its OpenSSL supports them (`enabled="0"` here means refused or untestable, sslscan does not say which).',
      '',
      '| Certificate problem | Rampart | sslscan | Same? |',
      '|---|---|---|---|',
      ...Object.keys(ourCert).map((k) => `| ${k} | ${ourCert[k as keyof typeof ourCert]} | ${theirCert[k as keyof typeof theirCert]} | ${ourCert[k as keyof typeof ourCert] === theirCert[k as keyof typeof theirCert] ? 'yes' : '**no**'} |`),
      '',
      `Agreement: protocols ${protocolsAgree ? 'identical' : 'DIFFERENT'}, certificate problems ${certAgree ? 'identical' : 'DIFFERENT'}.`,
      '',
      `Rampart findings: ${findings.map((f) => `${f.tags?.[0]} — ${f.title}`).join('; ')}.`,
    ];
    writeReportSection('ssl-scanner', 'ssl scanner vs sslscan', lines);
    console.log(lines.join('\n'));
  } finally {
    await server.close();
  }
}

await main();
