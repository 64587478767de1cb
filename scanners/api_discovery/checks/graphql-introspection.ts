import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { endpointOf } from '../../_lib/endpoint.ts';
import { ProbeTally } from '../../_lib/http.ts';

export const GRAPHQL_PATHS = ['/graphql', '/api/graphql', '/graphql/v1', '/v1/graphql', '/query', '/gql'];
const INTROSPECTION = '{__schema{queryType{name fields{name}} mutationType{name fields{name}} types{name}}}';

interface Schema {
  queryType?: { fields?: Array<{ name: string }> } | null;
  mutationType?: { fields?: Array<{ name: string }> } | null;
  types?: Array<{ name: string }>;
}

export const graphqlIntrospection: ScannerCheck = {
  id: 'api_discovery:graphql-introspection',
  title: 'GraphQL introspection enabled',
  category: 'api',
  maxSeverity: 'medium',
  description: 'POSTs an introspection query to common GraphQL paths and reports endpoints that return `data.__schema`, listing queries and mutations.',
  async run(ctx, target) {
    const ep = endpointOf(target, true);
    if (!ep) return;
    // A path that fails is logged and the others tried; no answer at all fails the check
    // (a silent "completed" would read as "no introspection"), out of scope always does.
    const tally = new ProbeTally();
    for (const path of GRAPHQL_PATHS) {
      const url = `${ep.origin}${path}`;
      const res = await tally.request(ctx, url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: INTROSPECTION }), maxBodyBytes: 2 * 1024 * 1024 });
      if (res?.status !== 200) continue;
      let schema: Schema | undefined;
      try {
        schema = (JSON.parse(res.body) as { data?: { __schema?: Schema } }).data?.__schema;
      } catch {
        continue;
      }
      if (!schema) continue;
      const queries = (schema.queryType?.fields ?? []).map((f) => `query ${f.name}`);
      const mutations = (schema.mutationType?.fields ?? []).map((f) => `mutation ${f.name}`);
      ctx.report({
        title: `GraphQL introspection enabled at ${path}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${url} answers introspection queries without authentication: the full schema (${queries.length} queries, ${mutations.length} mutations, ${schema.types?.length ?? 0} types) is readable, including fields not meant for clients.`,
        remediation: 'Disable introspection in production (or require authentication for it).',
        evidence: { url, method: 'POST', payload: INTROSPECTION, operations: [...queries, ...mutations].slice(0, 200), response_indicator: `data.__schema with ${queries.length} queries, ${mutations.length} mutations` },
        references: ['https://graphql.org/learn/introspection/'],
        tags: ['api', 'graphql'],
        location: url,
      });
    }
    tally.settle();
  },
};
