import { ImportFileError } from './import-file-error.ts';
import type { ImportedResult, ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { scoreImport, severityWord } from './import-score.ts';
import { clip, cleanTags, compact, cveIds, cweIds, evidenceText, hostOf, httpUrls, LIMITS, maskSecrets, referencesFor, urlsIn } from './import-text.ts';
import { jsonPath } from './json-path.ts';
import { JsonWalker } from './json-walker.ts';
import { textLines } from './text-lines.ts';

type Json = Record<string, unknown>;

/** Each nuclei result stands alone. */
const NO_CONTEXT: ReaderOutcome = { context: null, complete: true };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field names of nuclei v3 first, then the v2 spellings older files use. */
function field(r: Json, ...names: string[]): unknown {
  for (const n of names) if (r[n] !== undefined && r[n] !== null) return r[n];
  return undefined;
}

function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

function invalid(where: string, message: string): never {
  throw new ImportFileError(`${message} (a nuclei result is one JSON object per line with template-id, info.severity and matched-at)`, where);
}

/**
 * The target's names: nuclei's `host` and `url` as written (`https://example.com`), then the
 * host names of those and of `matched-at`, then the IP nuclei connected to. Not `matched-at`
 * itself: it differs per result, and an import keeps one entry per distinct target list.
 */
function targetsOf(raw: Json, matchedAt: unknown): string[] {
  const full = [raw.host, raw.url].filter((v): v is string => typeof v === 'string' && v !== '');
  const all = [...full, ...[...full, matchedAt].map(hostOf), typeof raw.ip === 'string' ? raw.ip : null];
  return [...new Set(all.filter((v): v is string => !!v))];
}

/**
 * One nuclei result (`nuclei -jsonl`, or an element of `-json-export`'s array) as an
 * imported result. The request, response and curl command are not kept: they can carry
 * the scanning session's cookies and credentials; the original file stays the place for them.
 */
export function nucleiResult(raw: unknown, where: string): ImportedResult {
  if (!isObject(raw)) invalid(where, 'expected a JSON object');
  const templateId = field(raw, 'template-id', 'templateID');
  if (typeof templateId !== 'string' || !templateId) invalid(where, '"template-id" is missing');
  const info = raw.info;
  if (!isObject(info)) invalid(where, '"info" is missing or not an object');
  const toolSeverity = severityWord(info.severity);
  if (!toolSeverity) invalid(where, `"info.severity" must be one of info, low, medium, high, critical, unknown (found ${JSON.stringify(info.severity ?? null)})`);
  const classification = isObject(info.classification) ? info.classification : {};
  const matchedAt = field(raw, 'matched-at', 'matched');
  const matcher = field(raw, 'matcher-name', 'matcher_name');
  const extractor = field(raw, 'extractor-name', 'extractor_name');
  const extracted = strings(field(raw, 'extracted-results', 'extracted_results')).map(maskSecrets);
  const host = raw.host;
  const cves = cveIds(strings(classification['cve-id']));
  const cwes = cweIds(strings(classification['cwe-id']));
  const name = typeof info.name === 'string' && info.name.trim() ? info.name.trim() : templateId;
  const place = [matchedAt, host, raw.url, raw.ip].find((v): v is string => typeof v === 'string' && v !== '') ?? '';
  const score = scoreImport({ vectors: [classification['cvss-metrics']], score: classification['cvss-score'], severity: toolSeverity });
  const description = [info.description, typeof info.impact === 'string' ? `Impact: ${info.impact.trim()}` : null].filter((t): t is string => typeof t === 'string' && !!t.trim()).join('\n\n');
  const observed = typeof raw.timestamp === 'string' ? Date.parse(raw.timestamp) : NaN;
  return {
    where,
    targets: targetsOf(raw, matchedAt),
    checkId: `nuclei:${templateId}`,
    // Nuclei emits one line per (template, matcher or extractor, place, extraction): the same set makes the identity.
    location: [place, matcher ?? '', extractor ?? '', [...extracted].sort().join('\u0001')].join('\u0000'),
    title: clip(typeof matcher === 'string' && matcher ? `${name} (${matcher})` : name, LIMITS.title),
    description: clip(description.trim(), LIMITS.text),
    remediation: clip(typeof info.remediation === 'string' ? info.remediation.trim() : '', LIMITS.text),
    score,
    evidence: compact({
      url: typeof matchedAt === 'string' && /^https?:\/\//i.test(matchedAt) ? evidenceText(matchedAt) : null,
      location: evidenceText(matchedAt),
      response_indicator: extracted.length ? evidenceText(extracted.join(', ')) : null,
      extracted_results: extracted.slice(0, LIMITS.listItems).map((e) => clip(e, LIMITS.evidenceValue)),
      template_id: templateId,
      matcher_name: evidenceText(matcher),
      extractor_name: evidenceText(extractor),
      type: evidenceText(raw.type),
      host: evidenceText(host),
      ip: evidenceText(raw.ip),
      port: evidenceText(raw.port),
      cve_ids: cves,
      cwe_ids: cwes,
      tool: 'nuclei',
      tool_severity: typeof info.severity === 'string' ? info.severity : null,
      tool_cvss_vector: evidenceText(classification['cvss-metrics']),
    }),
    references: httpUrls([...strings(info.reference).flatMap((r) => (r.includes('http') ? urlsIn(r) : [r])), ...referencesFor(cwes, cves)]).slice(0, LIMITS.references),
    tags: cleanTags([...strings(info.tags), ...cves, ...cwes]),
    observedAt: Number.isFinite(observed) ? observed : null,
    initialStatus: 'open',
  };
}

/**
 * nuclei output: JSON Lines (`-jsonl`, one result per line; blank lines are skipped) or the
 * JSON array of `-json-export`. Errors name the line (JSONL) or the array index.
 */
export async function* readNuclei(text: TextSource, limits: ReaderLimits): AsyncGenerator<ReadResult, ReaderOutcome> {
  let head = '';
  for await (const chunk of text()) {
    head = chunk.replace(/^\uFEFF/, '').trimStart();
    if (head) break;
  }
  if (head.startsWith('[')) {
    const walker = new JsonWalker((path) => path.length === 1, limits);
    for await (const item of walker.items(text)) yield nucleiResult(item.value, jsonPath(item.path));
    if (!Array.isArray(walker.skeleton)) invalid('$', 'expected a JSON array of results');
    return NO_CONTEXT;
  }
  for await (const { line, text: content } of textLines(text, limits.maxItemChars)) {
    if (!content.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (err) {
      invalid(`line ${line}`, `not valid JSON (${(err as Error).message})`);
    }
    yield nucleiResult(value, `line ${line}`);
  }
  return NO_CONTEXT;
}
