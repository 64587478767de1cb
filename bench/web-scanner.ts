import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { runCheck } from '../core/author-kit/index.ts';
import type { FindingReport } from '../core/plugin-api/index.ts';
import webApp from '../scanners/web_app/index.ts';
import { urlTarget } from '../test/_helpers/targets/scan-target.ts';
import { startGeneratedSite } from './_lib/generated-site.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * The web scanner (all 14 checks, one after the other as one worker would, passive and
 * active, enable_bruteforce on) against a generated 500-page loopback site with a known
 * set of planted problems and look-alike decoys. Reports recall and precision per problem
 * kind, the requests each check sent, and the wall time as a ratio of the baseline: one
 * plain pass that fetches every page of the site once (the least any crawler must do).
 */
const PAGES = Number(process.env.BENCH_PAGES ?? 500);
const OPTIONS = { max_pages: 500, max_depth: 5, enable_bruteforce: true, active: true, time_delay_ms: 500, max_requests: 2000 };

/** The key a finding is counted under: `<kind> <where>`, as the site lists what it planted. */
function keysOf(checkId: string, f: FindingReport): string[] {
  const e = f.evidence ?? {};
  const path = (u: unknown) => new URL(String(u)).pathname;
  switch (checkId) {
    case 'web_app:directory-listing': return [`directory-listing ${path(f.location)}`];
    case 'web_app:exposed-files': return [`${e.kind} ${e.file}`];
    case 'web_app:cookies': return [f.title.startsWith('Session cookie') ? `cleartext-session-cookie ${e.cookie}` : `cookie-attributes ${e.cookie}`];
    case 'web_app:security-headers': return e.header === 'Content-Security-Policy' ? (e.pages as string[]).map((p) => `missing-csp ${p}`) : [`missing-header ${e.header}`];
    case 'web_app:open-redirect': return [`open-redirect ${path(f.location)}`];
    case 'web_app:xss-reflected': case 'web_app:sql-injection': case 'web_app:path-traversal': case 'web_app:command-injection': case 'web_app:template-injection':
      return [`${checkId.slice(8)} ${e.method} ${path(e.url)} ${e.parameter}`];
    default: return [`${checkId.slice(8)} ${f.location}`];
  }
}

/** One plain pass: every URL the site links to, fetched once, in breadth-first order. */
async function plainCrawl(start: string): Promise<{ ms: number; pages: number }> {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const seen = new Set([start]);
  const queue = [start];
  const t0 = performance.now();
  while (queue.length) {
    const url = queue.shift()!;
    const res = await request(url, { dispatcher: agent });
    const body = await res.body.text();
    if (!/html/.test(String(res.headers['content-type']))) continue;
    for (const m of body.matchAll(/href="([^"]+)"/g)) {
      const next = new URL(m[1]!, url);
      if (next.origin !== new URL(start).origin || next.search.startsWith('?C=')) continue;
      if (!seen.has(next.href)) {
        seen.add(next.href);
        queue.push(next.href);
      }
    }
  }
  const ms = performance.now() - t0;
  await agent.close();
  return { ms, pages: seen.size };
}

async function main(): Promise<void> {
  const site = await startGeneratedSite(PAGES);
  try {
    const baseline = await plainCrawl(`${site.url}/`);
    const rows: string[] = [];
    const found = new Set<string>();
    const started = performance.now();
    const warnings: string[] = [];
    for (const check of webApp.checks) {
      const before = site.requests;
      const t0 = performance.now();
      const a = await runCheck(check, urlTarget(`${site.url}/`), { timeoutMs: 600_000, options: { ...webApp.options && Object.fromEntries(Object.entries(webApp.options).map(([k, v]) => [k, v.default])), ...OPTIONS } });
      if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
      for (const f of a.findings) for (const k of keysOf(check.id, f)) found.add(k);
      warnings.push(...a.logs.filter((l) => l.level === 'WARN').map((l) => `${check.id}: ${l.message}`));
      rows.push(`| \`${check.id}\` | ${a.findings.length} | ${site.requests - before} | ${(performance.now() - t0).toFixed(0)} ms |`);
    }
    const scanMs = performance.now() - started;
    const planted = new Set(site.planted);
    const kinds = [...new Set([...planted, ...found].map((k) => k.split(' ')[0]!))].sort();
    const table = kinds.map((kind) => {
      const p = [...planted].filter((k) => k.startsWith(`${kind} `));
      const f = [...found].filter((k) => k.startsWith(`${kind} `));
      const tp = f.filter((k) => planted.has(k)).length;
      const recall = p.length ? `${((tp / p.length) * 100).toFixed(0)} % (${tp}/${p.length})` : '—';
      const precision = f.length ? `${((tp / f.length) * 100).toFixed(0)} % (${tp}/${f.length})` : '—';
      return `| ${kind} | ${p.length} | ${f.length} | ${recall} | ${precision} |`;
    });
    const tpAll = [...found].filter((k) => planted.has(k)).length;
    const missed = [...planted].filter((k) => !found.has(k));
    const extra = [...found].filter((k) => !planted.has(k));
    const lines = [
      `Site: ${baseline.pages} crawlable URLs on loopback (9 sections of articles, 5 Apache-style listings with sort links, 15 application endpoints of which 6 are safe decoys), ${site.planted.length} planted problems. Options: \`${JSON.stringify(OPTIONS)}\`.`,
      '',
      '| Problem kind | Planted | Reported | Recall | Precision |',
      '|---|---|---|---|---|',
      ...table,
      '',
      `**Overall: recall ${((tpAll / planted.size) * 100).toFixed(1)} % (${tpAll}/${planted.size}), precision ${((tpAll / Math.max(1, found.size)) * 100).toFixed(1)} % (${tpAll}/${found.size}).**${missed.length ? ` Missed: ${missed.join('; ')}.` : ''}${extra.length ? ` Not planted: ${extra.join('; ')}.` : ''}`,
      '',
      '| Check | Findings | Requests sent | Wall time |',
      '|---|---|---|---|',
      ...rows,
      '',
      `**Wall time: ${(scanMs / 1000).toFixed(1)} s for the 14 checks in sequence, ${site.requests - baseline.pages} requests in all; baseline (one plain pass over the ${baseline.pages} URLs): ${baseline.ms.toFixed(0)} ms. Ratio scanner / plain pass: ${(scanMs / baseline.ms).toFixed(1)}.**`,
      '',
      `Each crawling check (headers, cookies, listings, open redirects, files, the five active checks; mixed content only on HTTPS) crawls on its own: checks are independent units that may run in different workers (scanners/web_app/README.md). Warnings: ${warnings.length ? warnings.join('; ') : 'none'}.`,
    ];
    console.log(lines.join('\n'));
    writeReportSection('web-scanner', `web scanner on a generated ${PAGES}-page site`, lines);
  } finally {
    await site.close();
  }
}

await main();
