import { defineScanner } from '../../core/plugin-api/index.ts';
import { commandInjection } from './checks/command-injection.ts';
import { cookies } from './checks/cookies.ts';
import { cors } from './checks/cors.ts';
import { directoryListing } from './checks/directory-listing.ts';
import { exposedFiles } from './checks/exposed-files.ts';
import { mixedContent } from './checks/mixed-content.ts';
import { openRedirect } from './checks/open-redirect.ts';
import { pathTraversal } from './checks/path-traversal.ts';
import { securityHeaders } from './checks/security-headers.ts';
import { sqlInjection } from './checks/sql-injection.ts';
import { templateInjection } from './checks/template-injection.ts';
import { traceMethod } from './checks/trace-method.ts';
import { versionDisclosure } from './checks/version-disclosure.ts';
import { xssReflected } from './checks/xss-reflected.ts';
import { DEFAULT_MAX_REQUESTS } from './request-budget.ts';
import { DEFAULT_DELAY_MS } from './active/timing.ts';

/** Web application checks over HTTP(S): configuration, exposure, and (with options.active) injection (see README.md). */
export default defineScanner({
  name: 'web_app',
  version: '1.1.0',
  apiVersion: '^1.5.0',
  description: 'Security headers and cookies on every crawled page, version disclosure, directory listing, CORS, TRACE, mixed content, open redirects, sensitive files (content of every fetched body; names probed in every directory with enable_bruteforce) and, with options.active, reflected XSS, SQL injection, path traversal, OS command and template injection.',
  capabilities: ['net:outbound'],
  scanTypes: ['web_app'],
  assetTypes: ['url', 'domain'],
  options: {
    max_depth: { type: 'integer', default: 5, min: 0, max: 10, description: 'Crawl depth (links followed from the start page).' },
    max_pages: { type: 'integer', default: 20, min: 1, max: 500, description: 'Pages one check may fetch while crawling.' },
    follow_redirects: { type: 'boolean', default: true, description: 'Follow same-origin redirects while crawling.' },
    enable_bruteforce: { type: 'boolean', default: false, description: 'Probe well-known sensitive names (.env, .git/, dumps, backups, keys) in every directory the crawl found.' },
    max_requests: { type: 'integer', default: DEFAULT_MAX_REQUESTS, min: 10, max: 100_000, description: 'Requests one probing check (sensitive names, each active check) sends beyond its crawl; running out is a warning in the check outcome.' },
    time_delay_ms: { type: 'integer', default: DEFAULT_DELAY_MS, min: 50, max: 30_000, description: 'Delay time-based active payloads ask for (SQL sleep, shell sleep); an answer at least 80 % of it slower than the baseline, confirmed twice, is a hit.' },
  },
  checks: [
    securityHeaders, cookies, versionDisclosure, directoryListing, cors, traceMethod, mixedContent, openRedirect, exposedFiles,
    xssReflected, sqlInjection, pathTraversal, commandInjection, templateInjection,
  ],
});
