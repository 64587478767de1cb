import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerOf, httpRequest } from '../../_lib/http.ts';
import { sslEndpoint } from '../ssl-target.ts';

/** Six months, the minimum the HSTS preload list accepts for a meaningful policy. */
const MIN_MAX_AGE = 15_552_000;

export const hsts: ScannerCheck = {
  id: 'ssl:hsts',
  title: 'Missing or weak HSTS on HTTPS',
  category: 'headers',
  maxSeverity: 'low',
  description: 'Requests the HTTPS URL once and reads Strict-Transport-Security (absent, max-age=0, or max-age under 180 days).',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const res = await httpRequest(ctx, ep.url, { maxBodyBytes: 1024 });
    const value = headerOf(res, 'strict-transport-security');
    const maxAge = value ? Number(/max-age\s*=\s*"?(\d+)/i.exec(value)?.[1] ?? NaN) : NaN;
    if (value && Number.isFinite(maxAge) && maxAge >= MIN_MAX_AGE) return;
    const problem = !value ? 'is missing' : !Number.isFinite(maxAge) ? 'has no valid max-age' : `has max-age=${maxAge} (under ${MIN_MAX_AGE} s)`;
    ctx.report({
      title: value ? 'Weak HTTP Strict-Transport-Security policy' : 'Missing HTTP Strict-Transport-Security header',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `The Strict-Transport-Security header of ${ep.url} ${problem}, so browsers may still be downgraded to plain HTTP (SSL stripping).`,
      remediation: 'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS response.',
      evidence: { url: ep.url, method: 'GET', status: res.status, header: value ?? null, response_indicator: value ? `strict-transport-security: ${value}` : 'no strict-transport-security header' },
      references: ['https://www.rfc-editor.org/rfc/rfc6797'],
      tags: ['tls', 'headers'],
      location: ep.url,
    });
  },
};
