// What the two-instance test files share: the cluster with its scripts, loopback scan
// targets and webhook receivers, and the seeded load they send through both instances.
// Each file starts its own cluster (the kill file ends one of its instances), so the
// files run side by side.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexPkg, { type Knex } from 'knex';
import { mysqlConnection } from '../../../core/db/create-db.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { seededRandom } from '../../_helpers/harness/seeded-random.ts';
import { createTenant, REDIS_URL, SEED, startCluster, type Cluster, type Instance } from './instances.ts';

export { SEED };
export const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
export const countBy = (items: string[]) => items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

/** Whether this run has a shared MariaDB and a Redis; says why not when it has not. */
export async function twoInstancesAvailable(name: string): Promise<boolean> {
  const url = process.env.DATABASE_URL ?? '';
  const mariadb = /^(mysql|mariadb):/.test(url);
  if (!mariadb) console.warn(`${name}: skipped: two instances need a shared MariaDB (DATABASE_URL is not mysql:/mariadb:)`);
  const up = mariadb && (await serviceAvailable('MariaDB', url.replace(/^mariadb:/, 'mysql:'))) && (await serviceAvailable('Redis', REDIS_URL));
  console.log(`${name}: seed ${SEED} (RAMPART_TWO_INSTANCES_SEED reproduces it)`);
  return up;
}

export async function ok(res: Promise<{ status: number; body: any }>, status = 201): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.data;
}

export class TwoInstances {
  cluster!: Cluster;
  A!: Instance;
  B!: Instance;
  sql!: Knex;
  /** Either instance, by the seeded coin. */
  readonly either = () => (this.random() < 0.5 ? this.A : this.B);
  readonly random = seededRandom(SEED);
  readonly #scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-two-'));
  readonly #marker = join(this.#scriptsDir, 'runs.log');
  // One scan of an asset at a time: each scan gets its own loopback address (127.0.0.2, …) and listener.
  readonly #targets: Array<{ server: Server; host: string; port: number }> = [];
  #nextTarget = 2;
  readonly #receivers: HttpsReceiver[] = [];

  constructor() {
    // Each execution appends "<execution id> <its pid> <the worker's pid>": counted per execution.
    for (const [name, wait] of [['quick.js', 0], ['slow.js', 2500]] as const) {
      writeFileSync(join(this.#scriptsDir, name), `#!/usr/bin/env node
require('fs').appendFileSync(${JSON.stringify(this.#marker)}, process.env.RAMPART_EXECUTION_ID + ' ' + process.pid + ' ' + process.ppid + '\\n');
setTimeout(() => process.stdout.write('{"status":"success","data":{}}'), ${wait});
`);
      chmodSync(join(this.#scriptsDir, name), 0o755);
    }
  }

  /** `migrated`: on a copy of the migrated template instead of a new database the two processes migrate together. */
  async start(options: { migrated?: boolean } = {}): Promise<void> {
    const { ca } = await sharedTestCertificates();
    this.cluster = await startCluster({
      RAMPART__outbound__caCerts: JSON.stringify([ca.certPem]),
      RAMPART__executors__local__scriptsDir: this.#scriptsDir,
      RAMPART__executors__leaseMs: '1500',
      RAMPART__webhooks__requestTimeoutMs: '2000',
      RAMPART__webhooks__leaseMs: '3000',
    }, 2, options);
    [this.A, this.B] = this.cluster.instances as [Instance, Instance];
    this.sql = knexPkg({ client: 'mysql2', connection: mysqlConnection(this.cluster.db.url) });
  }

  async close(): Promise<void> {
    await this.sql?.destroy();
    await this.cluster?.close();
    await Promise.all(this.#receivers.map((r) => r.close()));
    this.#targets.forEach((x) => x.server.close());
    rmSync(this.#scriptsDir, { recursive: true, force: true });
  }

  markerLines(): string[][] {
    return existsSync(this.#marker) ? readFileSync(this.#marker, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ')) : [];
  }

  async scanTarget(): Promise<{ host: string; port: number }> {
    const host = `127.0.0.${this.#nextTarget++}`;
    const server = createServer((socket) => {
      socket.on('error', () => undefined); // the scanner may reset the connection
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const target = { server, host, port: (server.address() as { port: number }).port };
    this.#targets.push(target);
    return target;
  }

  async receiver(): Promise<HttpsReceiver> {
    const r = await startHttpsReceiver();
    this.#receivers.push(r);
    return r;
  }

  /** A tenant with a webhook to a receiver of its own, a local action running `script`, and an asset. */
  async setup(name: string, script: string) {
    const tenant = await createTenant(this.A, this.cluster.adminToken, name, 'enterprise');
    const r = await this.receiver();
    await ok(this.B.request('POST', '/api/webhooks', tenant.token, { name: 'load', url: `${r.origin}/hook`, events: ['finding.new'] }));
    const action = await ok(this.A.request('POST', '/api/actions', tenant.token, { name: `mark-${name}`, type: 'remediation', executor: 'local', config: { target: script }, retry: { max_attempts: 3, backoff_seconds: 0 } }));
    const asset = await ok(this.A.request('POST', '/api/assets', tenant.token, { name: `${name}.example.com`, type: 'domain' }));
    return { ...tenant, r, actionId: action.id as string, assetId: asset.id as string };
  }

  execution(via: Instance, token: string, id: string): Promise<any> {
    return via.request('GET', `/api/actions/executions/${id}`, token).then((r) => r.body.data);
  }

  /** Whether the instance has been killed. */
  dead(i: Instance): boolean {
    return i.service.child.killed || i.service.child.exitCode !== null;
  }

  /** B when it has been killed: the way a load balancer fails a request over to the survivor. */
  async send(via: Instance, method: string, path: string, token: string, body: unknown, status: number): Promise<any> {
    try {
      return await ok(via.request(method, path, token, body), status);
    } catch (err) {
      const other = via === this.A ? this.B : this.A;
      // A request cut by the kill may or may not have been stored: the checks count stored rows.
      if (!this.dead(via) || this.dead(other)) throw err;
      return ok(other.request(method, path, token, body), status);
    }
  }

  /** Findings (webhook deliveries), action runs and port scans of loopback targets, queued through both instances. */
  queueWork(token: string, n: { findings: number; runs: number; scans: number }, actionId: string, assetId: string) {
    const made = { findings: [] as string[], runs: [] as string[], scans: [] as string[] };
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < n.findings; i++) {
      const via = this.either();
      jobs.push(async () => void made.findings.push((await this.send(via, 'POST', '/api/findings', token, { asset_id: assetId, title: `Load finding ${i}`, cvss_vector: VECTOR }, 201)).id));
    }
    for (let i = 0; i < n.runs; i++) {
      const via = this.either();
      jobs.push(async () => void made.runs.push((await this.send(via, 'POST', `/api/actions/${actionId}/trigger`, token, { parameters: {} }, 202)).execution_id));
    }
    for (let i = 0; i < n.scans; i++) {
      const via = this.either();
      jobs.push(async () => {
        const target = await this.scanTarget();
        const ip = await this.send(via, 'POST', '/api/assets', token, { name: target.host, type: 'ip' }, 201);
        made.scans.push((await this.send(via, 'POST', '/api/scan/create', token, { asset_id: ip.id, scan_type: 'port', options: { ports: String(target.port) } }, 201)).scan_id);
      });
    }
    // Interleaved, eight at a time.
    jobs.sort(() => this.random() - 0.5);
    const done = (async () => {
      for (let i = 0; i < jobs.length; i += 8) await Promise.all(jobs.slice(i, i + 8).map((j) => j()));
    })();
    return { made, done };
  }
}
