import { defineScanner } from '../../core/plugin-api/index.ts';
import { cookies } from './checks/cookies.ts';
import { cors } from './checks/cors.ts';
import { directoryListing } from './checks/directory-listing.ts';
import { exposedFiles } from './checks/exposed-files.ts';
import { mixedContent } from './checks/mixed-content.ts';
import { openRedirect } from './checks/open-redirect.ts';
import { securityHeaders } from './checks/security-headers.ts';
import { traceMethod } from './checks/trace-method.ts';
import { versionDisclosure } from './checks/version-disclosure.ts';

/** Web application configuration checks over HTTP(S) (see README.md). */
export default defineScanner({
  name: 'web_app',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'Security headers, cookies, version disclosure, directory listing, CORS, TRACE, mixed content, open redirects and (with enable_bruteforce) exposed files.',
  capabilities: ['net:outbound'],
  scanTypes: ['web_app'],
  assetTypes: ['url', 'domain'],
  options: {
    max_depth: { type: 'integer', default: 5, min: 0, max: 10, description: 'Crawl depth (links followed from the start page).' },
    max_pages: { type: 'integer', default: 20, min: 1, max: 500, description: 'Pages one check may fetch while crawling.' },
    follow_redirects: { type: 'boolean', default: true, description: 'Follow same-origin redirects while crawling.' },
    enable_bruteforce: { type: 'boolean', default: false, description: 'Probe well-known sensitive paths (.git, .env, backups, server-status).' },
  },
  checks: [securityHeaders, cookies, versionDisclosure, directoryListing, cors, traceMethod, mixedContent, openRedirect, exposedFiles],
});
