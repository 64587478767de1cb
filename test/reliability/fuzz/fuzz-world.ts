import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import type { Scope } from '../../../core/domain/scopes.ts';

type Owner = 'own' | 'foreign';

export interface FuzzWorld {
  app: TestApp;
  /** The tenant every request acts as (every tenant scope). */
  token: string;
  tenantId: string;
  /** Same tenant, read scopes only: for 403s. */
  readOnlyToken: string;
  /** An agent of the tenant (agent-facing routes). */
  agentToken: string;
  /** Real ids by prefix (`ast`, `whk`, …; `cred` for credential names). */
  ids(prefix: string, owner: Owner): string[];
  /** A new record of the tenant, for requests that may delete or revoke it; undefined when none can be made. */
  fresh(prefix: string): Promise<string | undefined>;
  /** A token of the tenant that a logout may revoke. */
  burnableToken(): Promise<string>;
}

const READ_SCOPES: Scope[] = ['assets:read', 'scan:read', 'findings:read', 'actions:read', 'playbooks:read', 'events:read'];

/**
 * A Rampart app with two tenants holding one of each record (asset, finding, scan,
 * schedule, export, action + run + approval, playbook + run, webhook, credential, SIEM
 * integration, agent, user, token): tenant A is the one the fuzzer acts as, tenant B's
 * ids are the foreign ones. No background role is started, so nothing writes except
 * the requests themselves (which the row-count check relies on); `execute` answers at once.
 */
export async function createFuzzWorld(): Promise<FuzzWorld> {
  // An agent's long poll is capped at 1 s (the builder asks for none).
  // syncMaxRows 1 with two findings: an unfiltered export is a background record (an exp_ id),
  // a filtered one may still be streamed at once.
  const app = await createTestApp({ executors: { executeWaitMs: 0, agent: { maxWaitSeconds: 1 } }, exports: { syncMaxRows: 1 } });
  try {
    return await populate(app);
  } catch (err) {
    await app.close();
    throw err;
  }
}

async function populate(app: TestApp): Promise<FuzzWorld> {
  const own = new Map<string, string[]>();
  const foreign = new Map<string, string[]>();
  const a = await app.tenant({ name: 'fuzz-a', tier: 'enterprise' });
  const b = await app.tenant({ name: 'fuzz-b', tier: 'enterprise' });
  let n = 0;

  const call = async (token: string, method: string, url: string, payload?: unknown): Promise<any> => {
    const res = await app.request(method, url, { token, payload });
    if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url} → ${res.statusCode} ${res.raw.slice(0, 500)}`);
    return res.body?.data ?? res.body;
  };

  const creators = (tenantId: string, token: string, into: Map<string, string[]>): Record<string, () => Promise<string>> => ({
    ast: async () => { n += 1; return (await call(token, 'POST', '/api/assets', { name: `10.77.${(n >> 8) & 255}.${n & 255}`, type: 'ip', tags: ['fuzz'] })).id; },
    whk: async () => (await call(token, 'POST', '/api/webhooks', { name: `fuzz-${(n += 1)}`, url: 'https://127.0.0.1:1/hook', events: ['*'] })).id,
    siem: async () => (await call(token, 'POST', '/api/integrations/siem', { name: `fuzz-${(n += 1)}`, host: '127.0.0.1', port: 1, protocol: 'tcp', format: 'cef', events: ['finding.new'], active: false })).id,
    agt: async () => (await call(token, 'POST', '/api/agents', { name: `fuzz-${(n += 1)}` })).id,
    cred: async () => (await call(token, 'POST', '/api/credentials', { name: `fuzz_${(n += 1)}`, value: 'fuzz-credential-value' })).name,
    pbk: async () => (await call(token, 'POST', '/api/playbooks', { name: `fuzz-${(n += 1)}`, version: '1.0.0', trigger: { event: 'manual' }, steps: [{ id: 's1', type: 'action', action_ref: 'fuzz-approve' }] })).id,
    sch: async () => (await call(token, 'POST', '/api/scan-schedules', { asset_id: into.get('ast')![0], cron: '0 3 * * *', scan_type: 'port' })).id,
    usr: async () => (await call(app.adminToken, 'POST', `/api/admin/tenants/${tenantId}/users`, { email: `fuzz${(n += 1)}@example.com`, password: 'a long passphrase', scopes: ['assets:read'] })).id,
    tok: async () => (await call(app.adminToken, 'POST', `/api/admin/tenants/${tenantId}/tokens`, { name: `fuzz-${(n += 1)}`, scopes: ['assets:read'] })).id,
  });

  const seed = async (tenantId: string, token: string, into: Map<string, string[]>) => {
    const add = (prefix: string, id: string | undefined) => {
      if (id) into.set(prefix, [...(into.get(prefix) ?? []), id]);
    };
    const make = creators(tenantId, token, into);
    add('ten', tenantId);
    add('ast', await make.ast());
    const asset = into.get('ast')![0];
    const finding = await call(token, 'POST', '/api/findings', { asset_id: asset, title: 'fuzz finding', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
    add('fnd', finding.id);
    add('fnd', (await call(token, 'POST', '/api/findings', { asset_id: asset, title: 'fuzz finding 2', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' })).id);
    const scan = await call(token, 'POST', '/api/scan/create', { asset_id: asset, scan_type: 'port' });
    add('scn', scan.scan_id);
    add('exp', (await call(token, 'POST', '/api/findings/export', { format: 'csv' })).id);
    const action = await call(token, 'POST', '/api/actions', { name: 'fuzz-approve', type: 'approval', executor: 'local', config: {} });
    add('act', action.id);
    const run = await call(token, 'POST', `/api/actions/${action.id}/trigger`, { parameters: {} });
    add('exe', run.execution_id);
    add('apr', run.approval_id);
    add('pbk', await make.pbk());
    add('pbx', (await call(token, 'POST', `/api/playbooks/${into.get('pbk')![0]}/run`, {})).execution_id);
    for (const prefix of ['whk', 'siem', 'agt', 'cred', 'sch', 'usr', 'tok']) add(prefix, await make[prefix]());
    return make;
  };

  const makeA = await seed(a.tenantId, a.token, own);
  await seed(b.tenantId, b.token, foreign);
  const agent = await call(a.token, 'POST', '/api/agents', { name: 'fuzz-main-agent' });
  const readOnly = await app.ctx.services.admin.createToken(a.tenantId, { name: 'fuzz-read-only', scopes: READ_SCOPES, expiresAt: null });

  return {
    app,
    token: a.token,
    tenantId: a.tenantId,
    readOnlyToken: readOnly.token,
    agentToken: agent.token,
    ids: (prefix, owner) => (owner === 'own' ? own : foreign).get(prefix) ?? [],
    async fresh(prefix) {
      // A tenant limit (webhooks, SIEM, schedules) may have been reached by the fuzzer's own valid requests.
      return makeA[prefix]?.().catch(() => undefined);
    },
    async burnableToken() {
      const issued = await app.ctx.services.admin.createToken(a.tenantId, { name: 'fuzz-logout', scopes: ['assets:read'], expiresAt: null });
      return issued.token;
    },
  };
}
