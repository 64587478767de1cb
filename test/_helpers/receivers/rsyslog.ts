import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The rsyslogd binary, or null when the Debian package is not installed. */
export function findRsyslogd(): string | null {
  const which = spawnSync('sh', ['-c', 'command -v rsyslogd'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  return ['/usr/sbin/rsyslogd', '/sbin/rsyslogd'].find((p) => existsSync(p)) ?? null;
}

export interface RsyslogMessage {
  pri: string;
  facility: string;
  severity: string;
  timestamp: string;
  hostname: string;
  app: string;
  procid: string;
  msgid: string;
  sd: string;
  msg: string;
  /** mmpstrucdata's decoding of the structured data: {sdid: {param: value}}. */
  parsed: Record<string, Record<string, string>> | string;
}

export interface RsyslogServer {
  port: number;
  /** Every message rsyslog wrote so far, parsed from its JSON output lines. */
  messages(): RsyslogMessage[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForListener(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`rsyslogd exited (${child.exitCode}): ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`rsyslogd did not listen on ${port}: ${log()}`);
}

/**
 * A private rsyslogd on a loopback port (rsyslogd 8.2302 as Debian 12 ships it): TLS through the OpenSSL
 * driver, anonymous client auth, mmpstrucdata to decode structured data, one JSON line
 * per message. It touches no system rsyslog (own config, pidfile and work directory).
 */
export async function startRsyslog(bin: string, tls: { certPem: string; keyPem: string; caPem: string }): Promise<RsyslogServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-rsyslog-'));
  mkdirSync(join(dir, 'work'));
  writeFileSync(join(dir, 'ca.pem'), tls.caPem);
  writeFileSync(join(dir, 'cert.pem'), tls.certPem);
  writeFileSync(join(dir, 'key.pem'), tls.keyPem, { mode: 0o600 });
  const port = await freePort();
  const out = join(dir, 'out.json');
  const conf = `
global(workDirectory="${dir}/work" maxMessageSize="64k" parser.escapeControlCharactersOnReceive="off"
       DefaultNetstreamDriver="ossl"
       DefaultNetstreamDriverCAFile="${dir}/ca.pem"
       DefaultNetstreamDriverCertFile="${dir}/cert.pem"
       DefaultNetstreamDriverKeyFile="${dir}/key.pem")
module(load="imtcp" StreamDriver.Name="ossl" StreamDriver.Mode="1" StreamDriver.AuthMode="anon")
input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="tls")
module(load="mmpstrucdata")
template(name="json" type="list" option.jsonf="on") {
  property(outname="pri" name="pri" format="jsonf")
  property(outname="facility" name="syslogfacility" format="jsonf")
  property(outname="severity" name="syslogseverity" format="jsonf")
  property(outname="timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
  property(outname="hostname" name="hostname" format="jsonf")
  property(outname="app" name="app-name" format="jsonf")
  property(outname="procid" name="procid" format="jsonf")
  property(outname="msgid" name="msgid" format="jsonf")
  property(outname="sd" name="structured-data" format="jsonf")
  property(outname="msg" name="msg" format="jsonf")
  property(outname="parsed" name="$!rfc5424-sd" format="jsonf")
}
ruleset(name="tls") {
  action(type="mmpstrucdata" sd_name.lowercase="off")
  action(type="omfile" file="${out}" template="json")
}
`;
  writeFileSync(join(dir, 'rsyslog.conf'), conf);
  let log = '';
  const child = spawn(bin, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  try {
    await waitForListener(port, child, () => log);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    messages() {
      if (!existsSync(out)) return [];
      return readFileSync(out, 'utf8').split('\n').filter(Boolean).map((line) => {
        const m = JSON.parse(line) as RsyslogMessage;
        if (typeof m.parsed === 'string' && m.parsed.startsWith('{')) m.parsed = JSON.parse(m.parsed) as RsyslogMessage['parsed'];
        return m;
      });
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
