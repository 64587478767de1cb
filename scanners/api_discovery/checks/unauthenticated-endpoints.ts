import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { ProbeTally, snippet } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { baseUrlOf, findApiDocuments, operationsOf, requiresAuth } from '../openapi-documents.ts';

/** Operations tried per document: GET only (safe), at most this many. */
const MAX_PROBES = 20;

export const unauthenticatedEndpoints: ScannerCheck = {
  id: 'api_discovery:unauthenticated-endpoints',
  title: 'API operations answer without the declared authentication',
  category: 'auth',
  maxSeverity: 'high',
  description: 'For each discovered API document, calls the GET operations that declare a security requirement, without credentials (path parameters filled with 1), and reports those answering 2xx.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const tally = new ProbeTally();
    for (const api of await findApiDocuments(ctx, start)) {
      const base = baseUrlOf(api);
      const secured = operationsOf(api).filter((o) => o.method === 'GET' && requiresAuth(o)).slice(0, MAX_PROBES);
      for (const op of secured) {
        const url = `${base}${op.path.replace(/\{[^}]+\}/g, '1')}`;
        const res = await tally.request(ctx, url, { maxBodyBytes: 4096 });
        if (!res || res.status < 200 || res.status >= 300) continue;
        ctx.report({
          title: `${op.method} ${op.path} answers without authentication`,
          cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
          description: `${api.url} declares that ${op.method} ${op.path} requires ${op.security.map((s) => Object.keys(s).join('+')).join(' or ')}, but ${url} answered ${res.status} to a request without credentials.`,
          remediation: 'Enforce authentication on the operation (and check the gateway/middleware order).',
          evidence: { url, method: op.method, status: res.status, declared_security: op.security, document: api.url, response_indicator: `${res.status}: ${snippet(res.body, 0, 160)}` },
          references: ['https://owasp.org/API-Security/editions/2023/en/0xa2-broken-authentication/'],
          tags: ['api', 'auth'],
          location: `${op.method} ${url}`,
        });
      }
    }
    tally.settle();
  },
};
