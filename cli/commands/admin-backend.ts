import type { ApiTarget } from '../api-client.ts';
import { callApi } from '../api-client.ts';

export interface Page {
  page: number;
  perPage: number;
}

export interface ListResult {
  data: unknown[];
  meta: { total: number; page: number; per_page: number; total_pages: number };
}

/** The admin operations, the same whether they go through the API or straight to the database (--direct). */
export interface AdminBackend {
  listTenants(page: Page): Promise<ListResult>;
  createTenant(body: { name: string; tier?: string }): Promise<unknown>;
  getTenant(id: string): Promise<unknown>;
  updateTenant(id: string, body: { name?: string; tier?: string }): Promise<unknown>;
  listUsers(tenantId: string, page: Page): Promise<ListResult>;
  createUser(tenantId: string, body: { email: string; name?: string; password: string; scopes: string[] }): Promise<unknown>;
  deleteUser(id: string): Promise<void>;
  listTokens(tenantId: string, page: Page, includeRevoked: boolean): Promise<ListResult>;
  /** The answer carries `token`, shown once. */
  createToken(tenantId: string, body: { name: string; scopes: string[]; expires_in_seconds?: number; user_id?: string }): Promise<unknown>;
  revokeToken(id: string): Promise<unknown>;
  close(): Promise<void>;
}

const q = (page: Page, extra = '') => `?page=${page.page}&per_page=${page.perPage}${extra}`;
const seg = encodeURIComponent;

/** Admin through the API with an `admin`-scoped token (RAMPART_URL, RAMPART_TOKEN). */
export function apiAdminBackend(target: ApiTarget): AdminBackend {
  const data = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, json?: unknown) => ((await callApi(target, { method, path, json })).json as { data: unknown }).data;
  const list = async (path: string) => (await callApi(target, { method: 'GET', path })).json as ListResult;
  return {
    listTenants: (page) => list(`/api/admin/tenants${q(page)}`),
    createTenant: (body) => data('POST', '/api/admin/tenants', body),
    getTenant: (id) => data('GET', `/api/admin/tenants/${seg(id)}`),
    updateTenant: (id, body) => data('PATCH', `/api/admin/tenants/${seg(id)}`, body),
    listUsers: (tenantId, page) => list(`/api/admin/tenants/${seg(tenantId)}/users${q(page)}`),
    createUser: (tenantId, body) => data('POST', `/api/admin/tenants/${seg(tenantId)}/users`, body),
    deleteUser: async (id) => {
      await callApi(target, { method: 'DELETE', path: `/api/admin/users/${seg(id)}` });
    },
    listTokens: (tenantId, page, includeRevoked) => list(`/api/admin/tenants/${seg(tenantId)}/tokens${q(page, includeRevoked ? '&include_revoked=true' : '')}`),
    createToken: (tenantId, body) => data('POST', `/api/admin/tenants/${seg(tenantId)}/tokens`, body),
    revokeToken: (id) => data('DELETE', `/api/admin/tokens/${seg(id)}`),
    close: async () => undefined,
  };
}
