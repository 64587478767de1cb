import dns, { type LookupAddress } from 'node:dns';
import { createSocket } from 'node:dgram';
import { syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import test from 'ava';
import type { ScannerCheck, ScannerPlugin, ScanTarget } from '../../core/plugin-api/index.ts';
import { runCheck, type CheckAttempt } from '../../core/plugins/run-check.ts';
import { buildScope, scopeFunction } from '../../core/scans/scan-scope.ts';
import apiDiscovery from '../../scanners/api_discovery/index.ts';
import dnsScanner from '../../scanners/dns/index.ts';
import network from '../../scanners/network/index.ts';
import port from '../../scanners/port/index.ts';
import ssl from '../../scanners/ssl/index.ts';
import webApp from '../../scanners/web_app/index.ts';

// DNS rebinding: the scan's scope resolved the asset's name to a public address when the
// scan started; every later lookup of the name answers loopback. Every built-in check
// that can be pointed at a name runs as the engine runs it (runCheck with the scan's
// scope and a deny list holding loopback) against loopback listeners on the ports it
// would use, and none of them may reach one. Every lookup in this process, through the
// contract or around it (node:dns, node:dns/promises, a socket connecting by name),
// follows the same script. A control run without the deny list shows the same checks
// do reach those listeners, so a silent check cannot pass by doing nothing.

const NAME = 'rebind.test';
const PUBLIC = '203.0.113.7';
const SCANNERS: ScannerPlugin[] = [webApp, apiDiscovery, ssl, port, dnsScanner, network];
const DENY = ['127.0.0.0/8', '::1/128'];

/** Answers for NAME in order: the first lookup `first`, every later one `then`; other names as the system does. */
let script: { first: string; then: string; asked: number } = { first: PUBLIC, then: '127.0.0.1', asked: 0 };

function answer(): LookupAddress {
  const address = script.asked++ === 0 ? script.first : script.then;
  return { address, family: address.includes(':') ? 6 : 4 };
}

const systemLookup = dns.lookup;
const systemPromisesLookup = dns.promises.lookup;
test.before(() => {
  dns.lookup = ((host: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
    if (host.toLowerCase() !== NAME) return (systemLookup as (...a: unknown[]) => void)(host, options, callback);
    const a = answer();
    process.nextTick(() => (opts.all ? cb(null, [a]) : cb(null, a.address, a.family)));
  }) as typeof dns.lookup;
  dns.promises.lookup = (async (host: string, options?: { all?: boolean }) => {
    if (host.toLowerCase() !== NAME) return systemPromisesLookup(host, options as never);
    const a = answer();
    return options?.all ? [a] : a;
  }) as typeof dns.promises.lookup;
  syncBuiltinESMExports();
});
test.after.always(() => {
  dns.lookup = systemLookup;
  dns.promises.lookup = systemPromisesLookup;
  syncBuiltinESMExports();
});

interface Listeners {
  port: number;
  /** TCP connections accepted and UDP datagrams received so far. */
  reached(): number;
  close(): void;
}

/** A TCP and a UDP listener on one loopback port, counting every connection and datagram. */
async function listeners(): Promise<Listeners> {
  for (;;) {
    let count = 0;
    const tcp = createServer((s) => {
      count++;
      s.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const portNo = (tcp.address() as { port: number }).port;
    const udp = createSocket('udp4');
    udp.on('message', () => count++);
    const bound = await new Promise<boolean>((r) => {
      udp.once('error', () => r(false));
      udp.bind(portNo, '127.0.0.1', () => r(true));
    });
    if (!bound) {
      tcp.close();
      continue;
    }
    return {
      port: portNo,
      reached: () => count,
      close() {
        tcp.close();
        udp.close();
      },
    };
  }
}

/** The target a check is pointed at by name: an https URL for checks serving URLs (mixed content judges HTTPS sites only), else the domain. */
function targetFor(scanner: ScannerPlugin, check: ScannerCheck, portNo: number): ScanTarget | null {
  const types = check.assetTypes ?? scanner.assetTypes;
  if (types.includes('url')) {
    const url = `https://${NAME}:${portNo}/`;
    return { assetId: 'ast_rebind', assetType: 'url', name: url, host: NAME, port: portNo, url };
  }
  if (types.includes('domain')) return { assetId: 'ast_rebind', assetType: 'domain', name: NAME, host: NAME, port: portNo };
  return null;
}

/** Every check that can be pointed at a name, with the scanner it belongs to. */
const CHECKS = SCANNERS.flatMap((scanner) => scanner.checks.map((check) => ({ scanner, check }))).filter(({ scanner, check }) => targetFor(scanner, check, 1) !== null);

/** The options that keep every check on the listener's port and quick. */
function optionsFor(portNo: number): Record<string, unknown> {
  return {
    active: true,
    include_subdomains: true,
    ports: String(portNo),
    axfr_port: portNo,
    resolvers: [`127.0.0.1:${portNo}`],
    dns_timeout_ms: 300,
    handshake_timeout_ms: 500,
    probe_timeout_ms: 500,
    connect_timeout_ms: 500,
    max_pages: 3,
    max_depth: 1,
  };
}

/** Runs one check as the engine does: the scope built when the scan starts, then the check. */
async function runAsEngine(scanner: ScannerPlugin, check: ScannerCheck, deny: string[]): Promise<{ attempt: CheckAttempt; reached: number }> {
  const l = await listeners();
  try {
    const target = targetFor(scanner, check, l.port)!;
    const scope = await buildScope(target, deny, async () => [answer()]);
    const attempt = await runCheck(check, target, { options: optionsFor(l.port), inScope: scopeFunction(scope), deny, timeoutMs: 4_000 });
    return { attempt, reached: l.reached() };
  } finally {
    l.close();
  }
}

const said = (a: CheckAttempt): string => [a.error ?? '', ...a.logs.map((l) => l.message)].join('\n');

test.serial('a name that answers public, then loopback: no built-in check reaches loopback, and each one was refused by the deny list', async (t) => {
  t.true(CHECKS.length >= 30, `expected every built-in check, found ${CHECKS.length}`);
  const reachedLoopback: string[] = [];
  const notRefused: string[] = [];
  for (const { scanner, check } of CHECKS) {
    script = { first: PUBLIC, then: '127.0.0.1', asked: 0 };
    const { attempt, reached } = await runAsEngine(scanner, check, DENY);
    if (reached > 0) reachedLoopback.push(`${check.id}: ${reached} connection(s); ${attempt.status} ${said(attempt).trim().split('\n')[0]}`);
    else if (!/deny list/.test(said(attempt))) notRefused.push(`${check.id}: ${attempt.status} ${said(attempt).trim()}`);
  }
  t.deepEqual(reachedLoopback, [], 'checks that reached loopback');
  t.deepEqual(notRefused, [], 'checks that neither reached loopback nor say the deny list refused them');
});

test.serial('control: with loopback allowed, the same checks do reach the listeners (the refusal above is the deny list at work)', async (t) => {
  const silent: string[] = [];
  script = { first: '127.0.0.1', then: '127.0.0.1', asked: 0 };
  await Promise.all(
    CHECKS.map(async ({ scanner, check }) => {
      const { reached } = await runAsEngine(scanner, check, []);
      if (reached === 0) silent.push(check.id);
    }),
  );
  t.deepEqual(silent, [], 'every check pointed at the name connects to what it resolves to');
});
