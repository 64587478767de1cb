import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../../_helpers/harness/test-app.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';

/**
 * A real app with real local executables in a temp scripts dir: `ok.js` echoes its
 * parameters as `data.params` (and `data.ip`), `fail.js` reports an error, `slow.js`
 * answers after `SLOW_MS`. Every run appends `<execution id> <script> <params json>` to
 * the marker file, so a test can count how often each action really ran.
 */
export interface PlaybookWorld {
  app: TestApp;
  token: string;
  tenantId: string;
  scriptsDir: string;
  marker: string;
  runsOf(): Array<{ executionId: string; script: string; params: Record<string, unknown> }>;
  action(name: string, script: string, params?: string[], extra?: Record<string, unknown>): Promise<string>;
  playbook(def: Record<string, unknown>): Promise<string>;
  run(playbookId: string, payload?: Record<string, unknown>): Promise<string>;
  view(executionId: string): Promise<any>;
  steps(executionId: string): Promise<any[]>;
  until(executionId: string, statuses: string[], ms?: number): Promise<any>;
  events(executionId: string): Promise<string[]>;
  startWorkers(): void;
  close(): Promise<void>;
}

export function writeScripts(dir: string, marker: string, slowMs = 60_000): void {
  const head = (name: string) => `#!/usr/bin/env node
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const params = input ? JSON.parse(input) : {};
  require('fs').appendFileSync(${JSON.stringify(marker)}, process.env.RAMPART_EXECUTION_ID + ' ${name} ' + JSON.stringify(params) + '\\n');
`;
  const scripts: Record<string, string> = {
    'ok.js': `${head('ok.js')}  process.stdout.write(JSON.stringify({ status: 'success', data: { params, ip: '203.0.113.7', count: 3 } }));\n});\n`,
    'fail.js': `${head('fail.js')}  process.stdout.write(JSON.stringify({ status: 'error', error: { code: 'boom', message: 'it failed on purpose' } }));\n});\n`,
    'slow.js': `${head('slow.js')}  setTimeout(() => process.stdout.write(JSON.stringify({ status: 'success', data: {} })), ${slowMs});\n});\n`,
  };
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), body);
    chmodSync(join(dir, name), 0o755);
  }
}

export async function playbookWorld(overrides: Record<string, unknown> = {}, slowMs = 60_000, appOptions: Parameters<typeof createTestApp>[1] = {}): Promise<PlaybookWorld> {
  const scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-pb-'));
  const marker = join(scriptsDir, 'runs.log');
  writeScripts(scriptsDir, marker, slowMs);
  const { executors, playbooks, ...rest } = overrides as { executors?: Record<string, unknown>; playbooks?: Record<string, unknown> };
  const app = await createTestApp({ executors: { local: { scriptsDir }, pollIntervalMs: 20, ...executors }, playbooks: { pollIntervalMs: 20, leaseMs: 3000, ...playbooks }, ...rest }, appOptions);
  const { token, tenantId } = await app.tenant();
  const req = async (method: string, url: string, payload?: unknown) => {
    const res = await app.request(method, url, { token, payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.raw}`);
    return res.body;
  };
  let n = 0;
  const world: PlaybookWorld = {
    app,
    token,
    tenantId,
    scriptsDir,
    marker,
    runsOf: () =>
      (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n').filter(Boolean) : []).map((l) => {
        const [executionId, script, ...rest] = l.split(' ');
        return { executionId: executionId!, script: script!, params: JSON.parse(rest.join(' ')) };
      }),
    async action(name, script, params = [], extra = {}) {
      const body = await req('POST', '/api/actions', { name, type: 'remediation', executor: 'local', config: { target: script }, parameters: params.map((p) => ({ name: p, type: 'string', required: false })), ...extra });
      return body.data.id;
    },
    async playbook(def) {
      n += 1;
      const body = await req('POST', '/api/playbooks', { name: `pb-${n}-${Date.now()}`, version: '1.0.0', trigger: { event: 'manual', conditions: {} }, ...def });
      return body.data.id;
    },
    async run(playbookId, payload = {}) {
      const res = await app.request('POST', `/api/playbooks/${playbookId}/run`, { token, payload });
      if (res.statusCode !== 202) throw new Error(`run: ${res.statusCode} ${res.raw}`);
      return res.body.data.execution_id;
    },
    view: async (id) => (await req('GET', `/api/playbooks/executions/${id}`)).data,
    steps: async (id) => (await req('GET', `/api/playbooks/executions/${id}/steps`)).data,
    async until(id, statuses, ms = 20_000) {
      return eventually(async () => {
        const v = await world.view(id);
        return statuses.includes(v.status) ? v : undefined;
      }, ms);
    },
    async events(id) {
      const rows = (await app.ctx.db('events').whereIn('kind', ['playbook.started', 'playbook.completed', 'playbook.failed']).orderBy('id')) as Array<{ kind: string; data: string }>;
      return rows.filter((r) => JSON.parse(r.data).execution_id === id).map((r) => `${r.kind}:${JSON.parse(r.data).status}`);
    },
    startWorkers() {
      app.ctx.background.actions.start();
      app.ctx.background.playbooks.start();
    },
    async close() {
      await app.ctx.background.playbooks.stop();
      await app.ctx.background.actions.stop();
      await app.close();
      rmSync(scriptsDir, { recursive: true, force: true });
    },
  };
  return world;
}

export const actionStep = (id: string, ref: string, parameters: Record<string, unknown> = {}, on_success: string | null = null) => ({ id, name: id, type: 'action', action_ref: ref, parameters, on_success });
