import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerValues, httpRequest } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';

interface CookieIssue {
  name: string;
  missing: string[];
  set_cookie: string;
}

/** Attribute problems of one Set-Cookie line (`Secure` only matters on HTTPS). */
function issuesOf(line: string, https: boolean): CookieIssue | null {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const name = pair!.split('=')[0]!.trim();
  const names = new Set(attrs.map((a) => a.split('=')[0]!.trim().toLowerCase()));
  const sameSite = attrs.find((a) => /^samesite\s*=/i.test(a))?.split('=')[1]?.trim().toLowerCase();
  const missing: string[] = [];
  if (https && !names.has('secure')) missing.push('Secure');
  if (!names.has('httponly')) missing.push('HttpOnly');
  if (!sameSite || (sameSite === 'none' && !names.has('secure'))) missing.push('SameSite');
  // Values are secrets of someone's session: keep the name and attributes only.
  return missing.length ? { name, missing, set_cookie: [`${name}=<redacted>`, ...attrs].join('; ') } : null;
}

export const cookies: ScannerCheck = {
  id: 'web_app:cookies',
  title: 'Cookies without Secure, HttpOnly or SameSite',
  category: 'headers',
  maxSeverity: 'medium',
  description: 'Reads every Set-Cookie of the start page; Secure is required only over HTTPS.',
  async run(ctx, target) {
    const url = startUrl(target);
    if (!url) return;
    const res = await httpRequest(ctx, url);
    const https = url.startsWith('https:');
    const issues = headerValues(res, 'set-cookie').map((l) => issuesOf(l, https)).filter((x): x is CookieIssue => x !== null);
    if (!issues.length) return;
    const noSecure = issues.some((i) => i.missing.includes('Secure'));
    ctx.report({
      title: `Cookies without protective attributes: ${issues.map((i) => i.name).join(', ')}`,
      cvss_vector: noSecure ? 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `${url} sets cookies missing attributes: ${issues.map((i) => `${i.name} (${i.missing.join(', ')})`).join('; ')}. Without HttpOnly scripts can read them (XSS theft), without Secure they travel over plain HTTP, without SameSite they ride cross-site requests (CSRF).`,
      remediation: 'Set session cookies with `Secure; HttpOnly; SameSite=Lax` (or Strict).',
      evidence: { url, method: 'GET', cookies: issues, response_indicator: issues.map((i) => i.set_cookie).join(' | ') },
      tags: ['web', 'cookies'],
      location: url,
    });
  },
};
