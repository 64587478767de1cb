import { availableParallelism } from 'node:os';
import { createServer, type Server } from 'node:net';
import plugin from '../scanners/port/index.ts';
import { scanSharded } from '../scanners/_lib/connect-shards.ts';
import { connectOptions, scanSettings } from '../scanners/_lib/service-scan.ts';
import { runCheck } from '../core/author-kit/index.ts';
import { createNetnsLab, netnsUnavailable, type LabHostSpec } from '../test/_helpers/targets/netns-hosts.ts';
import { ensurePackage, nmapVerdicts, runNmap } from './_lib/nmap.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * The port scanner against nmap, in the same run, on this machine:
 * 1. a full connect scan of 127.0.0.1 (1-65535) against `nmap -sT -p-`;
 * 2. 16 hosts in network namespaces made here (open, closed and nftables-dropped
 *    ports), nmap's top 1,000 ports, against `nmap -sT -T4`: wall time and verdicts;
 * 3. service identification of this machine's brokers and databases against `nmap -sV`.
 * nmap and nftables are installed from the package registry when missing.
 */
const ROUNDS = Number(process.env.BENCH_PORT_ROUNDS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function listener(): Promise<{ server: Server; port: number }> {
  const server = createServer((c) => {
    c.on('error', () => undefined);
    c.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

async function loopback(nmap: string): Promise<string[]> {
  const extra = await Promise.all(Array.from({ length: 5 }, listener));
  try {
    const all = Array.from({ length: 65535 }, (_, i) => i + 1);
    const settings = scanSettings({ ports: 'all' });
    const scan = (threads: number) => scanSharded([{ host: '127.0.0.1', ports: all }], { ...connectOptions(settings), threads });
    const runs: Record<'sharded' | 'single' | 'nmap', number[]> = { sharded: [], single: [], nmap: [] };
    let ours!: Awaited<ReturnType<typeof scan>>[number];
    let theirs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      ours = (await scan(0))[0]!;
      runs.sharded.push(performance.now() - t);
      t = performance.now();
      await scan(1);
      runs.single.push(performance.now() - t);
      const n = await runNmap(nmap, ['-sT', '-p-', '-n', '-Pn', '127.0.0.1']);
      runs.nmap.push(n.ms);
      theirs = nmapVerdicts(n.hosts[0]).open;
    }
    const warm = runs.sharded.slice(1).length ? median(runs.sharded.slice(1)) : runs.sharded[0]!;
    const onlyOurs = ours.open.filter((p) => !theirs.includes(p));
    const onlyTheirs = theirs.filter((p) => !ours.open.includes(p));
    const mine = extra.map((e) => e.port);
    const row = (name: string, open: number | string, xs: number[]) => `| ${name} | ${open} | ${s(median(xs))} | ${xs.map((m) => (m / 1000).toFixed(2)).join(', ')} |`;
    return [
      '### Full connect scan of 127.0.0.1 (ports 1-65535)',
      '',
      `${ROUNDS} interleaved rounds, median wall time. Rampart: the port check's connect phase (\`scanSharded\` with the check's default options: ${settings.concurrency} connects in flight per host, timeouts learned per host) spread over ${availableParallelism()} threads (one per core), and on one thread for reference.`,
      '',
      '| scanner | open ports | wall time (median) | runs |',
      '|---|---:|---:|---|',
      row(`Rampart, ${availableParallelism()} threads`, ours.open.length, runs.sharded),
      row('Rampart, 1 thread', '—', runs.single),
      row('nmap -sT -p- -n -Pn', theirs.length, runs.nmap),
      '',
      `Time ratio Rampart / nmap: **${(median(runs.sharded) / median(runs.nmap)).toFixed(2)}** (goal ≤ 1.0); without the first run, which starts the threads: ${(warm / median(runs.nmap)).toFixed(2)}. One thread / nmap: ${(median(runs.single) / median(runs.nmap)).toFixed(2)}.`,
      `The 5 benchmark listeners found by Rampart: ${mine.every((p) => ours.open.includes(p)) ? 'all' : 'NOT all'}; by nmap: ${mine.every((p) => theirs.includes(p)) ? 'all' : 'NOT all'}.`,
      `Same open ports: ${!onlyOurs.length && !onlyTheirs.length ? '**yes**' : `no: only Rampart ${JSON.stringify(onlyOurs)}, only nmap ${JSON.stringify(onlyTheirs)} (other processes open and close loopback listeners between the two scans)`}. Rampart closed/filtered: ${ours.closed}/${ours.filtered.length}.`,
    ];
  } finally {
    extra.forEach((e) => e.server.close());
  }
}

/** Deterministic pseudo-random numbers, so every run builds the same 16 hosts. */
function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function labSpecs(top: number[]): LabHostSpec[] {
  const sorted = [...top].sort((a, b) => a - b);
  const rand = rng(17);
  return Array.from({ length: 16 }, () => {
    // A block of about 60-120 of the top ports, dropped; 2-5 open ports outside it.
    const start = Math.floor(rand() * (sorted.length - 130));
    const block: [number, number] = [sorted[start]!, sorted[start + 60 + Math.floor(rand() * 60)]!];
    const outside = top.filter((p) => p < block[0] || p > block[1]);
    const picks = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => outside[Math.floor(rand() * Math.min(outside.length, 300))]!);
    const open = [...new Set([...(outside.includes(22) ? [22] : []), ...picks])];
    return { open: open.sort((a, b) => a - b), drop: [block] };
  });
}

async function network(nmap: string, top: number[]): Promise<string[]> {
  const lab = await createNetnsLab(labSpecs(top));
  try {
    const addresses = lab.hosts.map((h) => h.address);
    const settings = scanSettings({ ports: top.join(',') });
    const scan = (adaptive: boolean) =>
      scanSharded(addresses.map((host) => ({ host, ports: top })), { ...connectOptions(settings), adaptive });
    const oursRuns: number[] = [];
    const nmapRuns: number[] = [];
    let ours!: Awaited<ReturnType<typeof scan>>;
    let theirs!: Awaited<ReturnType<typeof runNmap>>;
    for (let round = 0; round < ROUNDS; round++) {
      const t = performance.now();
      ours = await scan(true);
      oursRuns.push(performance.now() - t);
      theirs = await runNmap(nmap, ['-sT', '-T4', '-n', '-p', top.join(','), ...addresses]);
      nmapRuns.push(theirs.ms);
    }
    const fixedStarted = performance.now();
    const fixed = await scan(false);
    const fixedMs = performance.now() - fixedStarted;
    const checkStarted = performance.now();
    const check = await runCheck(plugin.checks[0]!, { assetId: 'ast_bench', assetType: 'network', name: `${lab.gateway.replace(/\.1$/, '.0')}/24` }, {
      options: { ports: top.join(',') }, timeoutMs: 600_000, inScope: (h) => addresses.includes(h),
    });
    const checkMs = performance.now() - checkStarted;
    const rows = lab.hosts.map((h, i) => {
      const o = ours[i]!;
      const n = nmapVerdicts(theirs.hosts.find((x) => x.address === h.address));
      const same = o.open.join() === n.open.join() && o.open.join() === h.open.join();
      return `| ${h.address} | ${h.open.join(',')} | ${h.drop.map(([a, b]) => `${a}-${b}`).join()} | ${o.open.join(',')} · ${o.closed} · ${o.filtered.length} | ${n.open.join(',')} · ${n.closed} · ${n.filtered} | ${same ? 'yes' : '**no**'} |`;
    });
    const identical = lab.hosts.every((h, i) => ours[i]!.open.join() === nmapVerdicts(theirs.hosts.find((x) => x.address === h.address)).open.join());
    const filteredOurs = ours.reduce((n, r) => n + r.filtered.length, 0);
    return [
      `### 16 hosts in network namespaces, nmap's top ${top.length} ports`,
      '',
      `Each host is a network namespace on a bridge (veth), with a Node listener on its open ports and an nftables rule dropping one block of ports; nothing else is a target. ${ROUNDS} interleaved rounds, median wall time. Rampart: the port check's connect phase with its default options (${settings.concurrency} connects in flight per host and ${settings.maxSockets} in all, timeouts learned per host between ${settings.minTimeoutMs} and ${settings.connectTimeoutMs} ms, ${settings.retries} retry of an unanswered port). No added latency: \`tc netem\` is not available in this kernel (the sch_netem module is absent and cannot be loaded here), so round trips are those of a veth pair.`,
      '',
      '| scanner | wall time (median) | runs |',
      '|---|---:|---|',
      `| Rampart, learned timeouts | ${s(median(oursRuns))} | ${oursRuns.map((m) => (m / 1000).toFixed(2)).join(', ')} |`,
      `| nmap -sT -T4 | ${s(median(nmapRuns))} | ${nmapRuns.map((m) => (m / 1000).toFixed(2)).join(', ')} |`,
      `| Rampart, fixed 1.5 s timeout (the old behaviour), one run | ${s(fixedMs)} | |`,
      `| Rampart's whole port:tcp-services check (scan, service identification, findings), one run | ${s(checkMs)} | ${check.findings.length} findings, ${check.status} |`,
      '',
      `Time ratio Rampart / nmap: **${(median(oursRuns) / median(nmapRuns)).toFixed(2)}** (goal ≤ 1.0). Identical open ports on every host: **${identical ? 'yes' : 'no'}**. Filtered ports: Rampart ${filteredOurs}, nmap ${theirs.hosts.reduce((n, h) => n + nmapVerdicts(h).filtered, 0)}; the fixed-timeout run found the same open ports: ${fixed.every((r, i) => r.open.join() === ours[i]!.open.join()) ? 'yes' : 'no'}.`,
      '',
      'Verdicts of the last round, open ports · closed · filtered:',
      '',
      '| host | listening | dropped block | Rampart | nmap | open ports identical |',
      '|---|---|---|---|---|---|',
      ...rows,
    ];
  } finally {
    await lab.close();
  }
}

const SERVICES = [4222, 1883, 5672, 3306, 5432, 6379, 4369, 25672];

async function serviceId(nmap: string): Promise<string[]> {
  const t = performance.now();
  const check = await runCheck(plugin.checks[0]!, { assetId: 'ast_bench', assetType: 'ip', name: '127.0.0.1', host: '127.0.0.1' }, { options: { ports: SERVICES.join(',') }, timeoutMs: 300_000 });
  const oursMs = performance.now() - t;
  const theirs = await runNmap(nmap, ['-sV', '-n', '-Pn', '-p', SERVICES.join(','), '127.0.0.1']);
  const byPort = new Map(check.findings.filter((f) => !f.location!.includes('#')).map((f) => [Number(f.evidence!.port), f.evidence!]));
  let bothOrNeither = 0;
  const rows = SERVICES.map((port) => {
    const e = byPort.get(port);
    const n = theirs.hosts[0]?.ports.find((p) => p.port === port);
    const ourName = e ? String(e.service) : 'closed';
    const ourVersion = e ? [e.product, e.version ?? e.redis_version].filter(Boolean).join(' ') : '';
    const theirsName = n?.state === 'open' ? `${n.service ?? ''}${n.method === 'table' ? '?' : ''}` : n?.state ?? 'closed';
    const identified = { ours: !!e && e.service !== 'unknown', theirs: n?.state === 'open' && n.method === 'probed' };
    if (identified.ours === identified.theirs) bothOrNeither += 1;
    return `| ${port} | ${ourName}${ourVersion ? ` (${ourVersion})` : ''} | ${theirsName}${n?.product ? ` (${[n.product, n.version].filter(Boolean).join(' ')})` : ''} |`;
  });
  const oursIdentified = SERVICES.filter((p) => byPort.get(p) && byPort.get(p)!.service !== 'unknown').length;
  const theirsIdentified = SERVICES.filter((p) => theirs.hosts[0]?.ports.find((x) => x.port === p && x.state === 'open' && x.method === 'probed')).length;
  const access = check.findings.filter((f) => /#(no-auth|no-password|default-credentials|epmd)$/.test(f.location!)).map((f) => `- ${f.title} (\`${f.cvss_vector}\`)`);
  return [
    `### Service identification on this machine's brokers and databases (127.0.0.1)`,
    '',
    `Ports ${SERVICES.join(', ')}. Rampart: the whole port:tcp-services check (connect, identification, access checks, findings); nmap: \`nmap -sV -n -Pn\` (identification only). One run each (nmap -sV waits out its probes on silent ports).`,
    '',
    '| port | Rampart | nmap -sV (`?`: guessed from the port number) |',
    '|---|---|---|',
    ...rows,
    '',
    `Identified: Rampart ${oursIdentified} of ${SERVICES.length}, nmap ${theirsIdentified} of ${SERVICES.length}. Wall time: Rampart ${s(oursMs)}, nmap ${s(theirs.ms)}; ratio Rampart / nmap **${(oursMs / theirs.ms).toFixed(3)}**.`,
    '',
    'What Rampart found beyond identification (nmap -sV reports none of these):',
    '',
    ...access,
  ];
}

const nmap = ensurePackage('nmap', 'nmap');
if (!nmap) {
  console.error('nmap is not installed and could not be installed (apt-get install -y nmap): no baseline, no benchmark');
  process.exit(1);
}
const only = process.argv.slice(2).filter((a) => a.startsWith('--only=')).map((a) => a.slice(7));
const wants = (name: string) => !only.length || only.includes(name);
if (wants('loopback')) {
  const lines = await loopback(nmap);
  console.log(lines.join('\n'));
  writeReportSection('port-scanner', 'Loopback full range vs nmap -sT', lines);
}
if (wants('network')) {
  ensurePackage('nft', 'nftables');
  const why = await netnsUnavailable();
  const top = (await runNmap(nmap, ['-sT', '--top-ports', '1000', '-n', '-Pn', '127.0.0.1'])).scanned;
  const lines = why ? [`Not run on this machine: ${why}. Everything else in this report was measured.`] : await network(nmap, top);
  console.log(lines.join('\n'));
  writeReportSection('port-scanner', '16 hosts in network namespaces vs nmap -sT -T4', lines);
}
if (wants('services')) {
  const lines = await serviceId(nmap);
  console.log(lines.join('\n'));
  writeReportSection('port-scanner', 'Service identification vs nmap -sV', lines);
}
process.exit(0);
