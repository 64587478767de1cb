import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Installs a Debian package when its binary is missing (the benchmark's baselines come from the package registry). */
export function ensurePackage(binary: string, pkg: string): string | null {
  const found = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].map((d) => `${d}/${binary}`).find((p) => existsSync(p));
  if (found) return found;
  try {
    console.log(`installing ${pkg}`);
    execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    return null;
  }
  return ['/usr/bin', '/usr/sbin'].map((d) => `${d}/${binary}`).find((p) => existsSync(p)) ?? null;
}

export interface NmapPort {
  port: number;
  state: string;
  service?: string;
  product?: string;
  version?: string;
  /** `probed` (answered a probe) or `table` (a guess from the port number). */
  method?: string;
}

export interface NmapHost {
  address: string;
  ports: NmapPort[];
  /** Ports folded into `<extraports>`, by state. */
  extra: Record<string, number>;
}

export interface NmapRun {
  ms: number;
  hosts: NmapHost[];
  /** The port list nmap scanned (`<scaninfo services>`), expanded. */
  scanned: number[];
}

const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

function expand(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number) as [number, number?];
    return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
  });
}

/** Parses nmap's XML output (-oX -): hosts, their listed ports, the folded counts. */
export function parseNmapXml(xml: string): Omit<NmapRun, 'ms'> {
  const services = /<scaninfo [^>]*services="([^"]*)"/.exec(xml)?.[1] ?? '';
  const hosts: NmapHost[] = [];
  for (const block of xml.split('<host ').slice(1)) {
    const address = /<address addr="([^"]+)" addrtype="ipv[46]"/.exec(block)?.[1] ?? '';
    const ports: NmapPort[] = [];
    for (const m of block.matchAll(/<port protocol="tcp" portid="(\d+)">(.*?)<\/port>/gs)) {
      const state = /<state state="([^"]+)"/.exec(m[2]!)?.[1] ?? '';
      const svc = /<service [^>]*>/.exec(m[2]!)?.[0] ?? '';
      ports.push({ port: Number(m[1]), state, service: attr(svc, 'name'), product: attr(svc, 'product'), version: attr(svc, 'version'), method: attr(svc, 'method') });
    }
    const extra: Record<string, number> = {};
    for (const m of block.matchAll(/<extraports state="([^"]+)" count="(\d+)"/g)) extra[m[1]!] = Number(m[2]);
    hosts.push({ address, ports, extra });
  }
  return { hosts, scanned: services ? expand(services) : [] };
}

/** Runs nmap with `args` (XML to stdout added), timed from spawn to exit. */
export function runNmap(nmap: string, args: string[]): Promise<NmapRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(nmap, [...args, '-oX', '-']);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`nmap exited ${code}: ${err.slice(0, 300)}`));
      resolve({ ms, ...parseNmapXml(out) });
    });
  });
}

/** State counts of one nmap host over `ports`: listed ports plus the folded ones. */
export function nmapVerdicts(host: NmapHost | undefined): { open: number[]; closed: number; filtered: number } {
  if (!host) return { open: [], closed: 0, filtered: 0 };
  const count = (state: string) => host.ports.filter((p) => p.state === state).length + (host.extra[state] ?? 0);
  return { open: host.ports.filter((p) => p.state === 'open').map((p) => p.port).sort((a, b) => a - b), closed: count('closed'), filtered: count('filtered') };
}
