import { loadHtml } from '../_lib/html-document.ts';
import type { CheckContext } from '../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../_lib/http.ts';

/** Where frameworks publish their API description (Springdoc, Swashbuckle, FastAPI, hapi-swagger…). */
export const COMMON_PATHS = [
  '/openapi.json', '/swagger.json', '/api/openapi.json', '/api/swagger.json', '/v3/api-docs', '/v2/api-docs', '/api-docs',
  '/swagger/v1/swagger.json', '/docs/openapi.json', '/api/docs/openapi.json', '/.well-known/openapi.json', '/api/v1/openapi.json',
];

export interface ApiDocument {
  url: string;
  /** `openapi 3.x` or `swagger 2.0`. */
  version: string;
  doc: Record<string, unknown>;
}

export interface Operation {
  method: string;
  path: string;
  /** Security requirements that apply (operation-level over global); empty = none declared. */
  security: Array<Record<string, unknown>>;
  parameters: unknown[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function parseDocument(url: string, body: string): ApiDocument | null {
  try {
    const doc = JSON.parse(body) as Record<string, unknown>;
    const version = typeof doc.openapi === 'string' ? `openapi ${doc.openapi}` : typeof doc.swagger === 'string' ? `swagger ${doc.swagger}` : null;
    if (!version || typeof doc.paths !== 'object' || doc.paths === null) return null;
    return { url, version, doc };
  } catch {
    return null;
  }
}

/** Links on the start page that look like API descriptions (`…openapi….json`, `…swagger….json`, `api-docs`). */
async function linkedCandidates(ctx: CheckContext, start: string): Promise<string[]> {
  try {
    const res = await httpRequest(ctx, start);
    if (!/html/i.test(headerOf(res, 'content-type') ?? '')) return [];
    const $ = loadHtml(res.body);
    const found = new Set<string>();
    $('a[href], link[href]').each((_i, el) => {
      const href = $(el).attr('href') ?? '';
      if (/(openapi|swagger)[^/]*\.json|api-docs/i.test(href)) found.add(new URL(href, start).href);
    });
    const inline = res.body.match(/["'](\/[\w./-]*(?:openapi|swagger)[\w./-]*\.json)["']/gi) ?? [];
    for (const m of inline) found.add(new URL(m.slice(1, -1), start).href);
    return [...found].filter((u) => new URL(u).origin === new URL(start).origin);
  } catch {
    return [];
  }
}

/** API documents at common paths and linked from the start page (same origin; JSON only). */
export async function findApiDocuments(ctx: CheckContext, start: string): Promise<ApiDocument[]> {
  const origin = new URL(start).origin;
  const candidates = [...new Set([...(await linkedCandidates(ctx, start)), ...COMMON_PATHS.map((p) => `${origin}${p}`)])];
  const docs: ApiDocument[] = [];
  for (const url of candidates) {
    try {
      const res = await httpRequest(ctx, url, { maxBodyBytes: 2 * 1024 * 1024 });
      if (res.status !== 200) continue;
      const doc = parseDocument(url, res.body);
      if (doc) docs.push(doc);
    } catch (err) {
      ctx.log('DEBUG', `${url}: ${(err as Error).message}`);
    }
  }
  return docs;
}

/** Every operation of a document with the security that applies to it. */
export function operationsOf(api: ApiDocument): Operation[] {
  const global = Array.isArray(api.doc.security) ? (api.doc.security as Array<Record<string, unknown>>) : [];
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(api.doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const op = item?.[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const security = Array.isArray(op.security) ? (op.security as Array<Record<string, unknown>>) : global;
      ops.push({ method: method.toUpperCase(), path, security, parameters: [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])] });
    }
  }
  return ops;
}

/** True when the requirement list demands credentials (`[]` or a `{}` alternative means optional). */
export function requiresAuth(op: Operation): boolean {
  return op.security.length > 0 && op.security.every((req) => Object.keys(req).length > 0);
}

/** The base URL operations are relative to: servers[0] (OpenAPI 3) or basePath (Swagger 2), kept on the document's origin. */
export function baseUrlOf(api: ApiDocument): string {
  const origin = new URL(api.url).origin;
  const servers = api.doc.servers as Array<{ url?: string }> | undefined;
  const raw = servers?.[0]?.url ?? (typeof api.doc.basePath === 'string' ? api.doc.basePath : '');
  try {
    const u = new URL(raw || '/', api.url);
    return u.origin === origin ? u.href.replace(/\/$/, '') : origin;
  } catch {
    return origin;
  }
}
