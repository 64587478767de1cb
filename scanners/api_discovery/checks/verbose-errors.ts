import type { HttpMethod, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { endpointOf } from '../../_lib/endpoint.ts';
import { ProbeTally, snippet } from '../../_lib/http.ts';

/** Stack trace and debug-page signatures of common stacks. */
export const STACK_SIGNATURES: Array<{ stack: string; re: RegExp }> = [
  { stack: 'Node.js', re: /\bat (?:[\w.<>$]+ )?\(?(?:\/|[A-Z]:\\|file:\/\/|node:)[^\s)]+:\d+:\d+\)?/ },
  { stack: 'Python', re: /Traceback \(most recent call last\):/ },
  { stack: 'Java', re: /\b(?:java|javax|org\.springframework)\.[\w.]+(?:Exception|Error)\b[\s\S]{0,400}?\bat [\w.$]+\([\w]+\.java:\d+\)/ },
  { stack: '.NET', re: /\bSystem\.[\w.]+Exception\b[\s\S]{0,400}?\bat [\w.]+\(/ },
  { stack: 'PHP', re: /(?:Fatal error|Uncaught \w+Exception)[\s\S]{0,200}? in \/[^\s]+\.php(?: on line |:)\d+/ },
  { stack: 'Ruby on Rails', re: /Action Controller: Exception caught|\.rb:\d+:in `/ },
  { stack: 'Django', re: /You're seeing this error because you have <code>DEBUG = True<\/code>/ },
];

/** Requests that make careless handlers throw: a malformed escape, broken JSON, a type-confused query. */
function probes(origin: string, base: string): Array<{ url: string; method: HttpMethod; body?: string; headers?: Record<string, string>; why: string }> {
  return [
    { url: `${origin}/%`, method: 'GET', why: 'malformed percent-escape in the path' },
    { url: `${origin}/api/%`, method: 'GET', why: 'malformed percent-escape under /api' },
    { url: base, method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' }, why: 'truncated JSON body' },
    { url: `${base}${base.includes('?') ? '&' : '?'}id[]=1'&page=-1`, method: 'GET', why: 'array/quote parameter' },
  ];
}

export const verboseErrors: ScannerCheck = {
  id: 'api_discovery:verbose-errors',
  title: 'Verbose error pages with stack traces',
  category: 'disclosure',
  maxSeverity: 'medium',
  description: 'Sends four malformed requests and reports responses containing a stack trace or framework debug page.',
  async run(ctx, target) {
    const ep = endpointOf(target, true);
    if (!ep) return;
    const tally = new ProbeTally();
    for (const p of probes(ep.origin, ep.url)) {
      const res = await tally.request(ctx, p.url, { method: p.method, body: p.body, headers: p.headers, maxBodyBytes: 64 * 1024 });
      if (!res) continue;
      const hit = STACK_SIGNATURES.map((s) => ({ s, m: s.re.exec(res.body) })).find((x) => x.m);
      if (!hit) continue;
      ctx.report({
        title: `Stack trace disclosed (${hit.s.stack}) on ${p.why}`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        description: `${p.method} ${p.url} (${p.why}) answered ${res.status} with a ${hit.s.stack} stack trace, revealing file paths, frameworks and code structure.`,
        remediation: 'Return generic error bodies in production; log the details server-side (disable debug mode).',
        evidence: { url: p.url, method: p.method, ...(p.body ? { payload: p.body } : {}), status: res.status, stack: hit.s.stack, response_indicator: snippet(res.body, hit.m!.index, 240) },
        tags: ['api', 'disclosure'],
        location: ep.origin,
      });
      return;
    }
    tally.settle();
  },
};
