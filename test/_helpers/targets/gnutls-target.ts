import test from 'ava';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../harness/spawn-service.ts';

export interface GnutlsTarget {
  port: number;
  /** `https://127.0.0.1:<port>` (gnutls-serv answers TLS only; the checks use the URL for host and port). */
  url: string;
  close(): Promise<void>;
}

export interface GnutlsOptions {
  certPem: string;
  keyPem: string;
  /** GnuTLS priority string, e.g. `NORMAL:+ARCFOUR-128:+VERS-TLS1.0`. */
  priority: string;
  /** Answer HTTP (`--http`) instead of echoing, for checks that send a request. */
  http?: boolean;
}

/** Is gnutls-serv (Debian package gnutls-bin) on this machine? */
export function gnutlsAvailable(): boolean {
  return !spawnSync('gnutls-serv', ['--version']).error;
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * A real GnuTLS server (`gnutls-serv --echo`, or `--http`) on a free port with the given priority
 * string: unlike Node's OpenSSL 3.0 it can still offer RC4, 3DES, NULL and anonymous DH,
 * and TLS 1.0/1.1. gnutls-serv has no bind-address option, so it listens on every
 * interface; tests only ever connect to 127.0.0.1. Resolves once it accepts connections.
 */
export async function startGnutlsTarget(o: GnutlsOptions): Promise<GnutlsTarget> {
  if (!gnutlsAvailable()) throw new Error('gnutls-serv not found: install the Debian package gnutls-bin (.ci/run does)');
  const dir = mkdtempSync(join(tmpdir(), 'rampart-gnutls-'));
  writeFileSync(join(dir, 'cert.pem'), o.certPem);
  writeFileSync(join(dir, 'key.pem'), o.keyPem);
  let lastOutput = '';
  // Another process may take the free port before gnutls-serv binds it: then try another.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn('gnutls-serv', [o.http ? '--http' : '--echo', '--quiet', '--port', String(port), '--x509certfile', join(dir, 'cert.pem'), '--x509keyfile', join(dir, 'key.pem'), '--priority', o.priority], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const started = Date.now();
    while (child.exitCode === null && Date.now() - started < 15_000) {
      if (await accepting(port)) {
        return {
          port,
          url: `https://127.0.0.1:${port}`,
          async close() {
            await stop(child);
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop(child);
    lastOutput = output;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`gnutls-serv did not start (priority ${o.priority}): ${lastOutput}`);
}

/** `test` where gnutls-serv exists (or CI requires it: .ci/run installs it), else `test.skip`. */
export const withGnutls = gnutlsAvailable() || process.env.RAMPART_REQUIRE_SERVICES ? test : test.skip;
if (withGnutls === test.skip) console.warn('GnuTLS weak-cipher tests skipped: gnutls-serv is not installed (Debian package gnutls-bin)');
