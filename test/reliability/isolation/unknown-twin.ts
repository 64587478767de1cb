import type { InjectResult } from '../../_helpers/harness/test-app.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The same request with each of A's references replaced by one that exists nowhere
 * (`ast_…` → another well-formed `ast_…`, a credential name → an unused name). Another
 * tenant's record must answer exactly like a missing one, so the two answers are compared.
 */
export function unknownTwin(text: string, references: string[], random: () => number): { text: string; pairs: Array<[string, string]> } {
  const pairs: Array<[string, string]> = [];
  let out = text;
  // Longest first, so an id is never replaced inside a longer reference that contains it.
  for (const ref of [...references].sort((x, y) => y.length - x.length)) {
    if (!out.includes(ref)) continue;
    const m = /^([a-z]+_)[0-9A-Z]{26}$/.exec(ref);
    const twin = m ? m[1] + Array.from({ length: 26 }, () => CROCKFORD[Math.floor(random() * 32)]).join('') : `${ref}_absent`;
    pairs.push([ref, twin]);
    out = out.split(ref).join(twin);
  }
  return { text: out, pairs };
}

/** What a refusal says, with every reference of either request written as `<ref>`. */
export function refusalOf(res: InjectResult, pairs: Array<[string, string]>): unknown {
  let raw = JSON.stringify({ status: res.statusCode, error: res.body?.error ?? res.raw });
  for (const ref of pairs.flat().sort((x, y) => y.length - x.length)) raw = raw.split(ref).join('<ref>');
  const parsed = JSON.parse(raw) as { error?: { request_id?: unknown } };
  if (parsed.error && typeof parsed.error === 'object') delete parsed.error.request_id;
  return parsed;
}
