import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { endpointOf } from '../../_lib/endpoint.ts';
import { headerOf, httpRequest, snippet, type HttpResponse } from '../../_lib/http.ts';

interface Probe {
  path: string;
  what: string;
  /** Content proof: a soft 404 (200 for everything) must not count. Returns the index of the proof or -1. */
  proof(res: HttpResponse): number;
  high: boolean;
}

const notHtml = (res: HttpResponse) => !/html/i.test(headerOf(res, 'content-type') ?? '');
const match = (re: RegExp) => (res: HttpResponse) => re.exec(res.body)?.index ?? -1;
const magic = (bytes: number[]) => (res: HttpResponse) => (notHtml(res) && bytes.every((b, i) => res.bytes[i] === b) ? 0 : -1);

export const PROBES: Probe[] = [
  { path: '/.git/config', what: 'Git repository configuration', proof: match(/^\s*\[core\]/m), high: true },
  { path: '/.git/HEAD', what: 'Git HEAD reference', proof: match(/^ref: refs\/heads\//), high: true },
  { path: '/.env', what: 'environment file with settings and secrets', proof: (r) => (notHtml(r) ? match(/^[A-Z][A-Z0-9_]*=/m)(r) : -1), high: true },
  { path: '/.htpasswd', what: 'password file', proof: match(/^[\w.-]+:(\$apr1\$|\$2[aby]\$|\{SHA\}|[./\w]{13}$)/m), high: true },
  { path: '/server-status', what: 'Apache server-status page', proof: match(/Apache Server Status for/i), high: false },
  { path: '/backup.zip', what: 'backup archive', proof: magic([0x50, 0x4b, 0x03, 0x04]), high: true },
  { path: '/backup.tar.gz', what: 'backup archive', proof: magic([0x1f, 0x8b]), high: true },
  { path: '/backup.sql', what: 'database dump', proof: (r) => (notHtml(r) ? match(/(CREATE TABLE|INSERT INTO)\s/i)(r) : -1), high: true },
  { path: '/db.sql', what: 'database dump', proof: (r) => (notHtml(r) ? match(/(CREATE TABLE|INSERT INTO)\s/i)(r) : -1), high: true },
  { path: '/.DS_Store', what: 'macOS folder index (file names)', proof: magic([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]), high: false },
];

export const exposedFiles: ScannerCheck = {
  id: 'web_app:exposed-files',
  title: 'Exposed sensitive files',
  category: 'exposure',
  maxSeverity: 'high',
  description: 'Only with enable_bruteforce: requests well-known sensitive paths (.git, .env, backups, server-status…) and reports those whose content proves what they are.',
  async run(ctx, target) {
    if (ctx.options.enable_bruteforce !== true) {
      ctx.log('INFO', 'enable_bruteforce is off; sensitive paths not probed');
      return;
    }
    const ep = endpointOf(target, true);
    if (!ep) return;
    for (const probe of PROBES) {
      const url = `${ep.origin}${probe.path}`;
      const res = await httpRequest(ctx, url, { maxBodyBytes: 16 * 1024 });
      if (res.status !== 200) continue;
      const at = probe.proof(res);
      if (at < 0) continue;
      ctx.report({
        title: `Exposed ${probe.what}: ${probe.path}`,
        cvss_vector: probe.high ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${url} is publicly readable (${probe.what}).`,
        remediation: 'Remove the file from the web root or deny access to it (and rotate any secret it contained).',
        evidence: { url, method: 'GET', status: res.status, response_indicator: snippet(res.body.replace(/=.*$/gm, '=<redacted>'), at, 120) },
        tags: ['web', 'exposure', 'bruteforce'],
        location: url,
      });
    }
  },
};
