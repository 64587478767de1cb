import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { findApiDocuments, operationsOf } from '../openapi-documents.ts';

export const apiDocuments: ScannerCheck = {
  id: 'api_discovery:openapi',
  title: 'Public OpenAPI / Swagger document',
  category: 'api',
  maxSeverity: 'low',
  description: 'Requests 12 common document paths and the OpenAPI/Swagger links of the start page; reports each JSON document with `openapi`/`swagger` and `paths`, listing its operations.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    for (const api of await findApiDocuments(ctx, start)) {
      const ops = operationsOf(api);
      const info = (api.doc.info ?? {}) as { title?: string; version?: string };
      ctx.report({
        title: `API description published at ${new URL(api.url).pathname} (${ops.length} operations)`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${api.url} serves an ${api.version} document "${info.title ?? 'untitled'}" describing ${ops.length} operations to anyone. It maps the attack surface, including internal or undocumented operations.`,
        remediation: 'Publish API documents only where intended (behind authentication for internal APIs) and keep internal operations out of public documents.',
        evidence: {
          url: api.url,
          method: 'GET',
          spec_version: api.version,
          api_title: info.title ?? null,
          operations: ops.slice(0, 200).map((o) => `${o.method} ${o.path}`),
          operation_count: ops.length,
          response_indicator: `${api.version}; paths: ${ops.slice(0, 5).map((o) => `${o.method} ${o.path}`).join(', ')}`,
        },
        tags: ['api', 'discovery'],
        location: api.url,
      });
    }
  },
};
