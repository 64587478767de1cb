import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test, { type TestFn } from 'ava';

const run = promisify(execFile);

/**
 * `test`, or `test.skip` with the reason printed when the tool is not installed; with
 * RAMPART_REQUIRE_SERVICES=1 (CI, which installs it: .ci/run) the test runs and fails instead.
 */
export function withTool(tool: string, versionArgs: string[], what: string, install = `apt-get install -y ${tool}`): TestFn | TestFn['skip'] {
  const [command, ...args] = tool === 'gitleaks' ? GITLEAKS : [tool];
  const available = spawnSync(command!, [...args, ...versionArgs], { encoding: 'utf8' }).status === 0;
  if (!available) console.log(`${what} skipped: ${tool} is not installed (${install})${process.env.RAMPART_REQUIRE_SERVICES ? '; RAMPART_REQUIRE_SERVICES=1 makes it fail instead' : ''}`);
  return available || process.env.RAMPART_REQUIRE_SERVICES ? test : test.skip;
}

/**
 * gitleaks: a native `gitleaks` on PATH, else the WebAssembly build .ci/run unpacks
 * (RAMPART_GITLEAKS, run by this node; Debian has no gitleaks package).
 */
const GITLEAKS = process.env.RAMPART_GITLEAKS ? [process.execPath, process.env.RAMPART_GITLEAKS] : ['gitleaks'];

/** gitleaks' JSON report of a folder, secrets unredacted (gitleaks' default): what a user may upload. */
export async function gitleaksJson(dir: string): Promise<string> {
  const report = join(dir, '..', `${basename(dir)}-gitleaks.json`);
  await run(GITLEAKS[0]!, [...GITLEAKS.slice(1), 'dir', '.', '--no-banner', '--log-level', 'error', '--exit-code', '0', '--report-format', 'json', '--report-path', report], { cwd: dir, encoding: 'utf8' });
  try {
    return readFileSync(report, 'utf8');
  } finally {
    rmSync(report, { force: true });
  }
}

/** The purpose-built Python sample bandit is run over (test/fixtures/imports/samples/bandit). */
export const BANDIT_SAMPLE = fileURLToPath(new URL('../../fixtures/imports/samples/bandit/', import.meta.url));

/** `bandit -f json -r <dir>`, as a user runs it (exit status 1 means "issues found"). */
export async function banditJson(dir: string): Promise<string> {
  try {
    return (await run('bandit', ['-f', 'json', '-r', '.'], { cwd: dir, encoding: 'utf8' })).stdout;
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    if (e.code === 1 && e.stdout) return e.stdout;
    throw err;
  }
}

/**
 * A purpose-built vulnerable target on loopback: an HTTP server claiming Apache 2.2.8 that
 * answers overlapping byte ranges with 206 (what nmap's CVE-2011-3192 check looks for) and
 * serves /.git/ (http-git), and a TCP service with an old OpenSSH banner (service detection).
 */
export interface NmapTarget {
  httpPort: number;
  sshPort: number;
  close(): Promise<void>;
}

export async function startNmapTarget(): Promise<NmapTarget> {
  const http = createHttpServer((req, res) => {
    const headers = { Server: 'Apache/2.2.8 (Ubuntu)', 'Content-Type': 'text/html' };
    if (req.url?.startsWith('/.git/')) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/plain' });
      res.end(req.url === '/.git/HEAD' ? 'ref: refs/heads/main\n' : '[core]\n\trepositoryformatversion = 0\n');
      return;
    }
    res.writeHead(req.headers.range ? 206 : 200, headers);
    res.end('<html><head><title>Rampart nmap sample</title></head><body>sample</body></html>');
  });
  const ssh = createTcpServer((socket) => {
    socket.on('error', () => {});
    socket.end('SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8\r\n');
  });
  const listen = (s: Server | ReturnType<typeof createHttpServer>) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const [httpPort, sshPort] = await Promise.all([listen(http), listen(ssh)]);
  const close = (s: Server | ReturnType<typeof createHttpServer>) => new Promise<void>((resolve) => s.close(() => resolve()));
  return { httpPort, sshPort, close: async () => void (await Promise.all([close(http), close(ssh)])) };
}

/**
 * nmap's XML of the target, in two runs as a user would script them: service detection on
 * the SSH port (an HTTP port would hold -sV for its 6 s NULL probe), and NSE scripts forced
 * (`+`) onto the HTTP port, whose random number nmap cannot know as HTTP without -sV.
 */
export async function nmapXml(target: NmapTarget): Promise<{ services: string; scripts: string }> {
  const common = ['-Pn', '-n', '-sT', '-oX', '-', '127.0.0.1'];
  const [services, scripts] = await Promise.all([
    run('nmap', ['-sV', '--version-light', '-p', String(target.sshPort), ...common], { encoding: 'utf8' }),
    run('nmap', ['-p', String(target.httpPort), '--script', '+http-title,+http-git,+http-vuln-cve2011-3192', ...common], { encoding: 'utf8' }),
  ]);
  return { services: services.stdout, scripts: scripts.stdout };
}

/** Random characters from `alphabet`. */
function drawn(alphabet: string, n: number): string {
  return [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
}

/**
 * The gitleaks sample (test/fixtures/imports/samples/gitleaks/settings.py.in) written into
 * `dir` with secrets of the right shapes drawn at random; returns them.
 */
export function writeLeakySample(dir: string): string[] {
  const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const secrets = { AWS_ACCESS_KEY_ID: `AKIA${drawn(upper, 16)}`, GITHUB_TOKEN: `ghp_${drawn(alnum, 36)}`, API_KEY: drawn(alnum, 40) };
  const template = readFileSync(new URL('../../fixtures/imports/samples/gitleaks/settings.py.in', import.meta.url), 'utf8');
  writeFileSync(join(dir, 'settings.py'), template.replace(/\{\{(\w+)\}\}/g, (_, k: keyof typeof secrets) => secrets[k]));
  return Object.values(secrets);
}
