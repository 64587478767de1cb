import type { Server } from '@hapi/hapi';

/** One registered route as the matrix sees it. */
export interface TableRoute {
  key: string;
  method: string;
  path: string;
  /** Path parameters, e.g. ['id', 'delivery_id']. */
  params: string[];
  /** Query keys that take a record id (`asset_id`, `scan_id`, …). */
  idQueryKeys: string[];
  /** The scopes of which the route needs one; [] for public routes and routes without a scope. */
  scopes: string[];
}

function queryKeys(validate: unknown): string[] {
  const query = (validate as { query?: { describe?: () => { keys?: Record<string, unknown> } } } | undefined)?.query;
  if (!query || typeof query.describe !== 'function') return [];
  return Object.keys(query.describe().keys ?? {});
}

/** Every route of the server (`server.table()`), with what the isolation matrix needs of it. */
export function routeTable(server: Server): TableRoute[] {
  return server.table().map((r) => {
    const method = r.method.toUpperCase();
    const auth = (r.settings as { auth?: { access?: Array<{ scope?: { selection?: string[] } }> } | false }).auth;
    const scopes = auth ? (auth.access ?? []).flatMap((a) => a.scope?.selection ?? []) : [];
    return {
      key: `${method} ${r.path}`,
      method,
      path: r.path,
      params: [...r.path.matchAll(/\{(\w+)[?*\d]*\}/g)].map((m) => m[1]!),
      idQueryKeys: queryKeys(r.settings.validate).filter((k) => /_id$/.test(k)),
      scopes,
    };
  });
}


export function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
