import { loadHtml } from '../../_lib/html-document.ts';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';

const HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator', 'x-runtime-version'];
/** A product token carrying a version number, e.g. `Apache/2.4.41`, `PHP/7.4.3`, `Express 4.18`. */
const VERSIONED = /[A-Za-z][\w.-]*[/ ]v?\d+(\.\d+)+/;

export const versionDisclosure: ScannerCheck = {
  id: 'web_app:version-disclosure',
  title: 'Server or framework version disclosed',
  category: 'disclosure',
  maxSeverity: 'low',
  description: 'Reports headers (Server, X-Powered-By, X-AspNet-Version…) and a meta generator tag that carry a version number.',
  async run(ctx, target) {
    const url = startUrl(target);
    if (!url) return;
    const res = await httpRequest(ctx, url);
    const disclosed: Record<string, string> = {};
    for (const h of HEADERS) {
      const v = headerOf(res, h);
      if (v && (VERSIONED.test(v) || (h !== 'server' && /\d+\.\d+/.test(v)))) disclosed[h] = v;
    }
    if (/html/i.test(headerOf(res, 'content-type') ?? '')) {
      const gen = loadHtml(res.body)('meta[name="generator" i]').attr('content');
      if (gen && /\d+\.\d+/.test(gen)) disclosed['meta generator'] = gen;
    }
    const keys = Object.keys(disclosed);
    if (!keys.length) return;
    ctx.report({
      title: `Version disclosed: ${keys.map((k) => disclosed[k]).join(', ')}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
      description: `${url} announces software versions (${keys.map((k) => `${k}: ${disclosed[k]}`).join('; ')}), which lets attackers pick matching exploits without probing.`,
      remediation: 'Remove version tokens (Apache `ServerTokens Prod`, nginx `server_tokens off`, Express `app.disable("x-powered-by")`, PHP `expose_php = Off`).',
      evidence: { url, method: 'GET', disclosed, response_indicator: keys.map((k) => `${k}: ${disclosed[k]}`).join('; ') },
      tags: ['web', 'disclosure'],
      location: url,
    });
  },
};
