import { fileURLToPath } from 'node:url';
import type { TestApp } from './test-app.ts';

export const ENGINE_SCANNER = fileURLToPath(new URL('../../fixtures/engine-scanner/index.js', import.meta.url));

/** Config overrides: no built-in scanners, the engine fixture scanner from outside the tree. */
export function engineOnly(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { plugins: { builtin: [], baseDir: '/', external: [{ module: ENGINE_SCANNER, capabilities: [], options: {} }] }, ...extra };
}

export async function createAsset(t0: TestApp, name: string, type = 'ip', token?: string): Promise<string> {
  const res = await t0.request('POST', '/api/assets', { token, payload: { name, type } });
  if (res.statusCode !== 201) throw new Error(`asset create failed: ${res.raw}`);
  return res.body.data.id as string;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

/** Polls the scan until `until` says so (default: a terminal status); returns the scan. */
export async function waitForScan(t0: TestApp, scanId: string, until: (scan: any) => boolean = (s) => TERMINAL.includes(s.status), timeoutMs = 30_000, token?: string): Promise<any> {
  const started = Date.now();
  for (;;) {
    const res = await t0.request('GET', `/api/scan/${scanId}`, { token });
    if (res.statusCode !== 200) throw new Error(`scan read failed: ${res.raw}`);
    if (until(res.body.data)) return res.body.data;
    if (Date.now() - started > timeoutMs) throw new Error(`scan ${scanId} stuck: ${JSON.stringify(res.body.data)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function eventsOf(t0: TestApp, kind: string, filter: (data: any) => boolean = () => true): Promise<any[]> {
  const rows = (await t0.ctx.db('events').where({ kind }).orderBy('id')) as Array<{ data: string }>;
  return rows.map((r) => JSON.parse(r.data)).filter(filter);
}
