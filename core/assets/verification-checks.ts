import { Resolver } from 'node:dns/promises';
import * as cheerio from 'cheerio';
import { httpProbe, type HttpProbeOptions } from './http-probe.ts';
import { META_NAME, type MethodPlan } from './verification-methods.ts';

export interface CheckOutcome {
  verified: boolean;
  /** Stable reason when not verified: record_not_found, token_mismatch, http_error, unreachable, dns_error. */
  code: string | null;
  message: string;
  /** What was found instead: TXT values, meta tag contents, or a description of the answer. */
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

async function checkHttp(plan: MethodPlan, o: CheckOptions): Promise<CheckOutcome> {
  let failure: CheckOutcome | null = null;
  for (const url of plan.urls) {
    const res = await httpProbe(url, o);
    if (!res.ok) {
      failure ??= { verified: false, code: 'unreachable', message: `Could not fetch ${url}: ${res.error}.`, found: [], checked: url };
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      return { verified: false, code: 'http_error', message: `${res.url} answered HTTP ${res.status}.`, found: [`HTTP ${res.status}`], checked: res.url };
    }
    if (plan.method === 'meta_tag') {
      const $ = cheerio.load(res.body);
      const contents = $(`meta[name="${META_NAME}"]`).map((_i, el) => String($(el).attr('content') ?? '')).get();
      if (contents.some((c) => c.trim() === plan.expected)) return { verified: true, code: null, message: `Found the meta tag on ${res.url}.`, found: contents.map((c) => clip(c)), checked: res.url };
      return {
        verified: false,
        code: contents.length ? 'token_mismatch' : 'record_not_found',
        message: contents.length ? `${res.url} has ${contents.length} ${META_NAME} meta tag(s), none with the expected token.` : `${res.url} answered HTTP ${res.status} without a <meta name="${META_NAME}"> tag.`,
        found: contents.map((c) => clip(c)),
        checked: res.url,
      };
    }
    const text = res.body.trim();
    if (text === plan.expected) return { verified: true, code: null, message: `Found the verification file at ${res.url}.`, found: [clip(text, 100)], checked: res.url };
    // Only echo content that looks like a token: the file could be any page of an internal host.
    const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
    const shown = /^[\w=.:-]{1,100}$/.test(firstLine) ? [firstLine] : [`${Buffer.byteLength(res.body)} bytes of ${res.contentType || 'unknown type'}`];
    return { verified: false, code: 'token_mismatch', message: `${res.url} answered HTTP ${res.status} but its content is not the token.`, found: shown, checked: res.url };
  }
  return failure!;
}

/** Runs one method's check; never throws for what the remote side answers. */
export function runCheck(plan: MethodPlan, options: CheckOptions): Promise<CheckOutcome> {
  return plan.method === 'dns_txt' ? checkDns(plan, options) : checkHttp(plan, options);
}
