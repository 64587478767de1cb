import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { httpRequest, snippet } from '../../_lib/http.ts';
import { endpointOf } from '../../_lib/endpoint.ts';

const MARKER = 'rampart-trace-probe';

export const traceMethod: ScannerCheck = {
  id: 'web_app:trace',
  title: 'HTTP TRACE enabled',
  category: 'configuration',
  maxSeverity: 'low',
  description: 'Sends TRACE / with a marker header and reports a 200 whose body echoes the request (the marker).',
  async run(ctx, target) {
    const ep = endpointOf(target, true);
    if (!ep) return;
    const url = `${ep.origin}/`;
    const res = await httpRequest(ctx, url, { method: 'TRACE', headers: { 'x-rampart-probe': MARKER }, maxBodyBytes: 8192 });
    const at = res.body.indexOf(MARKER);
    if (res.status !== 200 || at < 0) return;
    ctx.report({
      title: 'HTTP TRACE method enabled',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `${url} answers TRACE by echoing the request, headers included. Combined with a script injection this exposes HttpOnly cookies and auth headers (cross-site tracing).`,
      remediation: 'Disable TRACE (Apache `TraceEnable off`; reject the method at the proxy).',
      evidence: { url, method: 'TRACE', status: res.status, payload: `X-Rampart-Probe: ${MARKER}`, response_indicator: snippet(res.body, at) },
      tags: ['web', 'configuration'],
      location: url,
    });
  },
};
