import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateToken } from '../../../core/auth/token-codec.ts';
import { freePort, startNpmScript, type Service } from '../../_helpers/harness/spawn-service.ts';
import { createTestDatabase } from '../../_helpers/harness/test-db.ts';
import { alive, childrenOf } from '../../_helpers/harness/processes.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

// `npm start` as an operator runs it: npm, then the compiled start (dist/, built here
// first if the sources changed), on a real socket and the test's database.

const TS_PLUGIN = fileURLToPath(new URL('../../fixtures/typescript-scanner/index.ts', import.meta.url));

async function started(t: import('ava').ExecutionContext, env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'rampart-npm-start-'));
  t.teardown(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  const token = generateToken();
  const service = startNpmScript('start', {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_TOKEN: token,
    RAMPART__secrets__keyFile: join(dir, 'secret.key'),
    RAMPART__exports__directory: join(dir, 'exports'),
    ...env,
  });
  t.teardown(() => killTree(service));
  // Compiling dist/ (when the sources changed) on a busy machine takes a while.
  await service.waitFor(/Rampart listening/, 280_000);
  const node = childrenOf(service.child.pid!).find((c) => c.name === 'node');
  if (!node) throw new Error(`npm has no node child: ${JSON.stringify(childrenOf(service.child.pid!))}`);
  return { service, port, token, node: node.pid, base: `http://127.0.0.1:${port}` };
}

function killTree(service: Service): void {
  for (const c of childrenOf(service.child.pid!)) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  service.child.kill('SIGKILL');
}

test('SIGTERM to npm stops the service: the node process exits, gracefully', async (t) => {
  t.timeout(300_000);
  const { service, node, base } = await started(t);
  t.is((await fetch(`${base}/api/health/live`)).status, 200);
  await service.waitFor(/Rampart 0\.1\.0 is running \(compiled JavaScript from dist\/\)/, 30_000);
  t.true(alive(node));

  service.child.kill('SIGTERM');
  await service.exited;
  await eventually(async () => !alive(node), 30_000);
  t.false(alive(node), 'the service does not outlive npm');
  t.regex(service.output(), /"signal":"SIGTERM","msg":"shutting down"/);
});

test('SIGINT to npm alone (not its process group) stops the service too', async (t) => {
  t.timeout(300_000);
  const { service, node } = await started(t);
  service.child.kill('SIGINT');
  await service.exited;
  await eventually(async () => !alive(node), 30_000);
  t.false(alive(node));
  t.regex(service.output(), /"signal":"SIGINT","msg":"shutting down"/);
});

test('a plugin shipped as TypeScript loads in the compiled start and its checks run in the check threads', async (t) => {
  t.timeout(300_000);
  const { service, base, token } = await started(t, {
    RAMPART__scans__denySelf: 'false',
    RAMPART__scans__requireVerifiedAsset: 'false',
    RAMPART__plugins__builtin: '[]',
    RAMPART__plugins__external: JSON.stringify([{ module: TS_PLUGIN, capabilities: [] }]),
  });
  // The banner goes to stderr after the JSON log line the helper waited for.
  await service.waitFor(/plugin tsfixture is TypeScript, transpiled as it loads; ship it as JavaScript for production/, 30_000);
  t.pass();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as any };
  };
  const asset = await call('POST', '/api/assets', { name: '127.0.0.1', type: 'ip' });
  t.is(asset.status, 201);
  const scan = await call('POST', '/api/scan/create', { asset_id: asset.body.data.id, scan_type: 'web_app' });
  t.is(scan.status, 201, JSON.stringify(scan.body));
  const done = await eventually(async () => {
    const s = await call('GET', `/api/scan/${scan.body.data.scan_id}/status`);
    return ['completed', 'failed'].includes(s.body.data.status) ? s.body.data : undefined;
  }, 120_000, 200);
  t.is(done.status, 'completed');
  const findings = await call('GET', `/api/findings?asset_id=${asset.body.data.id}`);
  t.is(findings.body.data.length, 1);
  t.is(findings.body.data[0].title, 'TypeScript plugin checked 127.0.0.1');
  const detail = await call('GET', `/api/findings/${findings.body.data[0].id}`);
  t.deepEqual(detail.body.data.evidence, { ran_in: 'check thread' });
});
