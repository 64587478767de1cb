import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';

/** An origin nobody owns (.invalid, RFC 2606): reflecting it means reflecting anything. */
const PROBE_ORIGIN = 'https://rampart-cors-probe.invalid';

export const cors: ScannerCheck = {
  id: 'web_app:cors',
  title: 'CORS reflects any origin with credentials',
  category: 'cors',
  maxSeverity: 'high',
  description: 'Sends Origin: https://rampart-cors-probe.invalid (and `null`) and reports an Access-Control-Allow-Origin echo together with Allow-Credentials: true.',
  async run(ctx, target) {
    const url = startUrl(target);
    if (!url) return;
    for (const origin of [PROBE_ORIGIN, 'null']) {
      const res = await httpRequest(ctx, url, { headers: { origin }, maxBodyBytes: 1024 });
      const acao = headerOf(res, 'access-control-allow-origin');
      const acac = headerOf(res, 'access-control-allow-credentials');
      if (acao !== origin || !/^true$/i.test(acac?.trim() ?? '')) continue;
      ctx.report({
        title: `CORS reflects arbitrary origins with credentials (Origin: ${origin})`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:L/A:N',
        description: `${url} answered Origin: ${origin} with Access-Control-Allow-Origin: ${acao} and Access-Control-Allow-Credentials: true. Any web site a logged-in user visits can read authenticated responses.`,
        remediation: 'Reflect only an allow-list of trusted origins, and never `null`; do not combine a reflected origin with credentials.',
        evidence: { url, method: 'GET', payload: `Origin: ${origin}`, response_indicator: `access-control-allow-origin: ${acao}; access-control-allow-credentials: ${acac}` },
        references: ['https://portswigger.net/web-security/cors'],
        tags: ['web', 'cors'],
        location: url,
      });
      return;
    }
  },
};
