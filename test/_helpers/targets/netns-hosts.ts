import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/**
 * System tools by absolute path: npm puts node_modules/.bin first in PATH, and a
 * package there is called `nft` too (@vercel/nft).
 */
export function systemBinary(name: string): string {
  for (const dir of ['/usr/sbin', '/sbin', '/usr/bin', '/bin']) if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  return name;
}
const run = (cmd: string, args: readonly string[]) => exec(systemBinary(cmd), [...args]);

/**
 * Test hosts in network namespaces made here: each namespace is one host with its own
 * address on a bridge in the root namespace (so scans from this process cross a real
 * veth link and the host's own TCP stack), a Node listener on its open ports, and an
 * nftables rule that silently drops a block of ports (filtered). Nothing but these
 * addresses is ever a target. Needs root (CAP_NET_ADMIN), iproute2 and nftables.
 */
export interface LabHostSpec {
  /** Ports that accept (a banner is sent on 21, 22, 25; HTTP is answered on 80/8080). */
  open: number[];
  /** Port ranges dropped without answer. */
  drop: Array<[number, number]>;
}

export interface LabHost extends LabHostSpec {
  namespace: string;
  address: string;
}

export interface NetnsLab {
  hosts: LabHost[];
  /** The bridge's address: where scans come from. */
  gateway: string;
  close(): Promise<void>;
}

const PREFIX = 'rmp';

/** Why a lab cannot be built here (a sentence), or null when it can. */
export async function netnsUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'network namespaces need root (CAP_NET_ADMIN)';
  for (const cmd of ['ip', 'nft']) {
    if (systemBinary(cmd) === cmd) return `${cmd} is not installed (${cmd === 'nft' ? 'apt-get install -y nftables' : 'apt-get install -y iproute2'})`;
  }
  const probe = `${PREFIX}probe${process.pid}`;
  try {
    await run('ip', ['netns', 'add', probe]);
    await run('ip', ['netns', 'exec', probe, systemBinary('nft'), 'add', 'table', 'inet', 'probe']);
  } catch (err) {
    return `cannot create a network namespace with nftables here: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    await run('ip', ['netns', 'del', probe]).catch(() => undefined);
  }
  return null;
}

/** Namespaces and bridges left by a lab whose process died (the pid in the name is gone). */
async function sweepStale(): Promise<void> {
  const { stdout } = await run('ip', ['-o', 'link', 'show', 'type', 'bridge']).catch(() => ({ stdout: '' }));
  const names = (await run('ip', ['netns', 'list']).catch(() => ({ stdout: '' }))).stdout.split('\n').map((l) => l.split(' ')[0]!);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const ns of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)h\\d+$`).exec(ns);
    if (m && !alive(Number(m[1]))) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
  }
  for (const m of stdout.matchAll(new RegExp(`\\d+: (${PREFIX}br(\\d+)):`, 'g'))) {
    if (!alive(Number(m[2]))) await run('ip', ['link', 'del', m[1]!]).catch(() => undefined);
  }
}

const LISTENER = `
import { createServer } from 'node:net';
const ports = JSON.parse(process.argv[1]);
const banners = { 21: '220 (vsFTPd 3.0.3)\\r\\n', 22: 'SSH-2.0-OpenSSH_9.2p1 Debian-2\\r\\n', 25: '220 mail.lab.test ESMTP Postfix\\r\\n' };
let up = 0;
for (const port of ports) {
  const server = createServer((s) => {
    s.on('error', () => {});
    if (banners[port]) s.write(banners[port]);
    s.on('data', (d) => { if (/^(GET|HEAD) /.test(d.toString())) s.end('HTTP/1.1 200 OK\\r\\nServer: lab-httpd\\r\\nContent-Length: 0\\r\\n\\r\\n'); });
  });
  server.listen(port, '0.0.0.0', () => { if (++up === ports.length) console.log('ready'); });
}
if (!ports.length) console.log('ready');
`;

/**
 * Builds one host per spec on 10.<a>.<b>.0/24 (a subnet picked from this process id so
 * parallel test files do not collide), hosts at .10, .11, …
 */
export async function createNetnsLab(specs: readonly LabHostSpec[]): Promise<NetnsLab> {
  await sweepStale();
  const id = process.pid;
  const subnet = `10.${200 + (id % 50)}.${Math.floor(id / 50) % 250}`;
  const bridge = `${PREFIX}br${id}`;
  const gateway = `${subnet}.1`;
  const children: ChildProcess[] = [];
  const hosts: LabHost[] = specs.map((s, i) => ({ ...s, namespace: `${PREFIX}${id}h${i}`, address: `${subnet}.${10 + i}` }));
  const close = async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const h of hosts) await run('ip', ['netns', 'del', h.namespace]).catch(() => undefined);
    await run('ip', ['link', 'del', bridge]).catch(() => undefined);
  };
  try {
    await run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    await run('ip', ['addr', 'add', `${gateway}/24`, 'dev', bridge]);
    await run('ip', ['link', 'set', bridge, 'up']);
    await Promise.all(hosts.map(async (h, i) => {
      const outer = `${PREFIX}${id % 100000}v${i}`.slice(0, 15);
      await run('ip', ['netns', 'add', h.namespace]);
      await run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.namespace]);
      await run('ip', ['link', 'set', outer, 'master', bridge]);
      await run('ip', ['link', 'set', outer, 'up']);
      const inNs = (cmd: string, ...args: string[]) => run('ip', ['netns', 'exec', h.namespace, systemBinary(cmd), ...args]);
      await inNs('ip', 'addr', 'add', `${h.address}/24`, 'dev', 'eth0');
      await inNs('ip', 'link', 'set', 'eth0', 'up');
      await inNs('ip', 'link', 'set', 'lo', 'up');
      if (h.drop.length) {
        const ranges = h.drop.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
        await inNs('nft', 'add', 'table', 'inet', 'rampart_lab');
        await inNs('nft', 'add', 'chain', 'inet', 'rampart_lab', 'input', '{ type filter hook input priority 0; policy accept; }');
        await inNs('nft', 'add', 'rule', 'inet', 'rampart_lab', 'input', 'tcp', 'dport', `{ ${ranges} }`, 'drop');
      }
      const child = spawn(systemBinary('ip'), ['netns', 'exec', h.namespace, process.execPath, '--input-type=module', '-e', LISTENER, JSON.stringify(h.open)], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`listener in ${h.namespace} exited (${code})`)));
      });
    }));
  } catch (err) {
    await close();
    throw err;
  }
  return { hosts, gateway, close };
}
