import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { headerValues } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { crawl } from '../crawler.ts';
import { listed, pathOf } from '../page-keys.ts';

interface SeenCookie {
  name: string;
  missing: Set<string>;
  /** The Set-Cookie line with the value redacted (the first one seen). */
  setCookie: string;
  pages: Set<string>;
  /** Set by a page served over plain HTTP. */
  cleartextPages: Set<string>;
  session: boolean;
}

/**
 * Names session and login cookies usually have (PHPSESSID, JSESSIONID, connect.sid, sid,
 * sid_tt, laravel_session, auth_token…). `sid` counts only as a whole part of the name:
 * `sidebar_state` or `considered` hold no session.
 */
const SESSION_NAME = /sess|(^|[_.-])sid($|[_.-])|auth|token|login|jwt|remember|^(asp\.net_sessionid|connect\.sid)$/i;

/** Whether a cookie's name says it carries a session or a login. */
export function sessionCookieName(name: string): boolean {
  return SESSION_NAME.test(name);
}

function parse(line: string): { name: string; value: string; attrs: string[] } {
  const [pair, ...attrs] = line.split(';').map((s) => s.trim());
  const at = pair!.indexOf('=');
  return { name: (at < 0 ? pair! : pair!.slice(0, at)).trim(), value: at < 0 ? '' : pair!.slice(at + 1).trim(), attrs };
}

/** Attribute problems of one Set-Cookie line (`Secure` only matters on HTTPS). */
function missingOf(attrs: string[], https: boolean): string[] {
  const names = new Set(attrs.map((a) => a.split('=')[0]!.trim().toLowerCase()));
  const sameSite = attrs.find((a) => /^samesite\s*=/i.test(a))?.split('=')[1]?.trim().toLowerCase();
  const missing: string[] = [];
  if (https && !names.has('secure')) missing.push('Secure');
  if (!names.has('httponly')) missing.push('HttpOnly');
  if (!sameSite || (sameSite === 'none' && !names.has('secure'))) missing.push('SameSite');
  return missing;
}

/** A cookie that carries a session: a session-like name, or an HttpOnly cookie with a long random-looking value. */
function looksLikeSession(name: string, value: string, attrs: string[]): boolean {
  if (sessionCookieName(name)) return true;
  return attrs.some((a) => /^httponly$/i.test(a)) && value.length >= 16 && /^[A-Za-z0-9%+/=._-]+$/.test(value);
}

export const cookies: ScannerCheck = {
  id: 'web_app:cookies',
  title: 'Cookies without Secure, HttpOnly or SameSite',
  category: 'headers',
  maxSeverity: 'medium',
  description: 'Reads every Set-Cookie of every crawled page: one finding per cookie missing HttpOnly, SameSite or (over HTTPS) Secure, listing the pages that set it; and a session cookie set over plain HTTP.',
  async run(ctx, target) {
    const start = startUrl(target);
    if (!start) return;
    const origin = new URL(start).origin;
    const byName = new Map<string, SeenCookie>();
    for (const page of await crawl(ctx, start)) {
      const https = page.url.startsWith('https:');
      for (const line of headerValues(page, 'set-cookie')) {
        const { name, value, attrs } = parse(line);
        if (!name) continue;
        // Values are secrets of someone's session: keep the name and attributes only.
        const seen = byName.get(name) ?? { name, missing: new Set(), setCookie: [`${name}=<redacted>`, ...attrs].join('; '), pages: new Set(), cleartextPages: new Set(), session: false };
        byName.set(name, seen);
        const missing = missingOf(attrs, https);
        for (const m of missing) seen.missing.add(m);
        if (missing.length) seen.pages.add(page.url);
        seen.session ||= looksLikeSession(name, value, attrs);
        if (!https) seen.cleartextPages.add(page.url);
      }
    }
    for (const c of byName.values()) {
      if (c.missing.size) {
        const missing = ['Secure', 'HttpOnly', 'SameSite'].filter((m) => c.missing.has(m));
        const pages = listed([...c.pages].map(pathOf));
        ctx.report({
          title: `Cookie without protective attributes: ${c.name}`,
          cvss_vector: c.missing.has('Secure') ? 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
          description: `${origin} sets the cookie \`${c.name}\` without ${missing.join(', ')} on ${c.pages.size} page(s). Without HttpOnly scripts can read it (XSS theft), without Secure it travels over plain HTTP, without SameSite it rides cross-site requests (CSRF).`,
          remediation: 'Set session cookies with `Secure; HttpOnly; SameSite=Lax` (or Strict).',
          evidence: { url: [...c.pages][0], method: 'GET', cookie: c.name, missing, set_cookie: c.setCookie, pages: pages.items, pages_not_listed: pages.more, response_indicator: c.setCookie },
          tags: ['web', 'cookies'],
          location: `${origin}/ cookie:${c.name}`,
        });
      }
      if (c.session && c.cleartextPages.size) {
        const pages = listed([...c.cleartextPages].map(pathOf));
        ctx.report({
          title: `Session cookie sent over plain HTTP: ${c.name}`,
          cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
          description: `${origin} sets what looks like a session cookie (\`${c.name}\`) over unencrypted HTTP on ${c.cleartextPages.size} page(s): anyone on the network path can read it and take over the session.`,
          remediation: 'Serve the site over HTTPS only (redirect HTTP, send HSTS) and mark session cookies `Secure`.',
          evidence: { url: [...c.cleartextPages][0], method: 'GET', cookie: c.name, set_cookie: c.setCookie, pages: pages.items, pages_not_listed: pages.more, response_indicator: `Set-Cookie: ${c.setCookie} over http://` },
          references: ['https://cwe.mitre.org/data/definitions/319.html'],
          tags: ['web', 'cookies', 'cleartext'],
          location: `${origin}/ cleartext-cookie:${c.name}`,
        });
      }
    }
  },
};
