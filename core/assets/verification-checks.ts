import { Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import type * as Cheerio from 'cheerio';
import { httpProbe, type HttpProbeOptions } from './http-probe.ts';
import { META_NAME, type MethodPlan } from './verification-methods.ts';

// cheerio (about 0.4 s of CPU to load) is needed only by the meta-tag check: loaded on first use.
const requireLazily = createRequire(import.meta.url);
let cheerio: typeof Cheerio | undefined;
const loadHtml = (body: string): Cheerio.CheerioAPI => (cheerio ??= requireLazily('cheerio') as typeof Cheerio).load(body);

export interface CheckOutcome {
  verified: boolean;
  /** Stable reason when not verified: record_not_found, token_mismatch, http_error, unreachable, destination_refused, dns_error. */
  code: string | null;
  message: string;
  /** What was found instead: TXT values; of a page only its HTTP status or token-shaped values. */
  found: string[];
  checked: string;
}

export interface CheckOptions extends HttpProbeOptions {
  resolvers: string[];
}

const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

async function checkDns(plan: MethodPlan, o: CheckOptions): Promise<CheckOutcome> {
  const resolver = new Resolver({ timeout: o.timeoutMs, tries: 2 });
  if (o.resolvers.length) resolver.setServers(o.resolvers);
  let records: string[];
  try {
    records = (await resolver.resolveTxt(plan.target)).map((chunks) => chunks.join(''));
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'ERROR';
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      return { verified: false, code: 'record_not_found', message: `No TXT records found at ${plan.target}.`, found: [], checked: plan.target };
    }
    return { verified: false, code: 'dns_error', message: `The TXT lookup of ${plan.target} failed (${code}).`, found: [], checked: plan.target };
  }
  const found = records.map((r) => clip(r));
  if (records.some((r) => r.trim() === plan.expected)) return { verified: true, code: null, message: `Found the TXT record at ${plan.target}.`, found, checked: plan.target };
  return {
    verified: false,
    code: records.length ? 'token_mismatch' : 'record_not_found',
    message: records.length ? `${records.length} TXT record(s) at ${plan.target}, none equal to "${plan.expected}".` : `No TXT records found at ${plan.target}.`,
    found,
    checked: plan.target,
  };
}

/**
 * What a failed HTTP check may show of the page: only values shaped like a verification
 * token (`rv-…`, bounded), which helps an owner who published the wrong one. Anything
 * else (content, type, length, other meta content, a file's first line) is described,
 * never echoed: the page could be any page of a host the tenant does not own.
 */
const TOKEN_SHAPED = /^rv-[A-Za-z0-9_-]{1,64}$/;
const tokenShaped = (values: string[]) => values.map((v) => v.trim()).filter((v) => TOKEN_SHAPED.test(v)).slice(0, 5);

function unreachable(url: string, res: { code: string; error: string }): CheckOutcome {
  if (res.code === 'destination_refused') {
    return {
      verified: false,
      code: 'destination_refused',
      message: `${url} was not fetched: ${res.error} Private, loopback and link-local addresses are contacted only when an administrator allow-lists them (outbound.allowPrivateCidrs); verification.denyNetworks never.`,
      found: [],
      checked: url,
    };
  }
  return { verified: false, code: 'unreachable', message: `Could not fetch ${url}: ${res.error.replace(/\.$/, '')}.`, found: [], checked: url };
}

async function checkHttp(plan: MethodPlan, o: CheckOptions): Promise<CheckOutcome> {
  let failure: CheckOutcome | null = null;
  for (const url of plan.urls) {
    const res = await httpProbe(url, o);
    if (!res.ok) {
      failure ??= unreachable(res.url, res);
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      return { verified: false, code: 'http_error', message: `${res.url} answered HTTP ${res.status}.`, found: [`HTTP ${res.status}`], checked: res.url };
    }
    if (plan.method === 'meta_tag') {
      const $ = loadHtml(res.body);
      const contents = $(`meta[name="${META_NAME}"]`).map((_i, el) => String($(el).attr('content') ?? '')).get();
      if (contents.some((c) => c.trim() === plan.expected)) return { verified: true, code: null, message: `Found the meta tag on ${res.url}.`, found: [plan.expected], checked: res.url };
      return {
        verified: false,
        code: contents.length ? 'token_mismatch' : 'record_not_found',
        message: contents.length ? `${res.url} has ${contents.length} ${META_NAME} meta tag(s), none with the expected token.` : `${res.url} answered HTTP ${res.status} without a <meta name="${META_NAME}"> tag.`,
        found: tokenShaped(contents),
        checked: res.url,
      };
    }
    const text = res.body.trim();
    if (text === plan.expected) return { verified: true, code: null, message: `Found the verification file at ${res.url}.`, found: [plan.expected], checked: res.url };
    return {
      verified: false,
      code: 'token_mismatch',
      message: `${res.url} answered HTTP ${res.status}, but the file did not contain the token.`,
      found: tokenShaped([text.split(/\r?\n/, 1)[0] ?? '']),
      checked: res.url,
    };
  }
  return failure!;
}

/** Runs one method's check; never throws for what the remote side answers. */
export function runCheck(plan: MethodPlan, options: CheckOptions): Promise<CheckOutcome> {
  return plan.method === 'dns_txt' ? checkDns(plan, options) : checkHttp(plan, options);
}
