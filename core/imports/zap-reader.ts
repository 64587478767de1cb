import type { Severity } from '../domain/severity.ts';
import { ImportFileError } from './import-file-error.ts';
import type { ImportedResult, ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { scoreImport } from './import-score.ts';
import { clip, cleanTags, compact, cweIds, evidenceText, hostOf, httpUrls, htmlToText, LIMITS, referencesFor, urlsIn } from './import-text.ts';
import { jsonPath, type PathPart } from './json-path.ts';
import { JsonWalker } from './json-walker.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ZAP's risk codes and confidence levels (https://www.zaproxy.org/docs/constants/). */
const RISK: Record<string, Severity> = { '0': 'info', '1': 'low', '2': 'medium', '3': 'high' };
const SESSION_TOKEN_RULE = '10112';
const CONFIDENCE: Record<string, string> = { '0': 'false_positive', '1': 'low', '2': 'medium', '3': 'high', '4': 'confirmed' };

/** `site[i].alerts[j]`; an old report with one `site` object: `site.alerts[j]`. */
function isAlertPath(path: readonly PathPart[]): boolean {
  return (path.length === 4 && path[0] === 'site' && typeof path[1] === 'number' && path[2] === 'alerts' && typeof path[3] === 'number')
    || (path.length === 3 && path[0] === 'site' && path[1] === 'alerts' && typeof path[2] === 'number');
}

function invalid(where: string, message: string): never {
  throw new ImportFileError(`${message} (a ZAP JSON report is {"site": [{"@name", "alerts": [{pluginid, name, riskcode, instances}]}]})`, where);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

interface Site {
  name: string;
  host: string;
  version: string | null;
  created: number | null;
}

function siteOf(skeleton: unknown, path: readonly PathPart[]): Site {
  const root = isObject(skeleton) ? skeleton : {};
  const sites = root.site;
  const site = (Array.isArray(sites) ? sites[path[1] as number] : sites) as Json | undefined;
  const created = typeof root.created === 'string' ? Date.parse(root.created) : NaN;
  return {
    name: str(site?.['@name']),
    host: str(site?.['@host']),
    version: typeof root['@version'] === 'string' ? root['@version'] : null,
    // `@generated` has no time zone; only the ISO `created` of newer reports says when.
    created: Number.isFinite(created) ? created : null,
  };
}

/** The imported results of one alert: one per instance (URL, method, parameter, attack). */
export function zapAlertResults(alert: unknown, where: string, site: Site): ImportedResult[] {
  if (!isObject(alert)) invalid(where, 'expected an alert object');
  const pluginId = str(alert.pluginid);
  if (!pluginId) invalid(`${where}.pluginid`, '"pluginid" is missing');
  const name = str(alert.name) || str(alert.alert);
  if (!name) invalid(`${where}.name`, '"name" (or "alert") is missing');
  const severity = RISK[str(alert.riskcode)];
  if (!severity) invalid(`${where}.riskcode`, `"riskcode" must be "0" to "3" (found ${JSON.stringify(alert.riskcode ?? null)})`);
  const confidence = CONFIDENCE[str(alert.confidence)] ?? null;
  const instances = alert.instances === undefined ? [] : alert.instances;
  if (!Array.isArray(instances)) invalid(`${where}.instances`, '"instances" must be an array');
  const cweid = Number(str(alert.cweid));
  const wascid = Number(str(alert.wascid));
  const cwes = Number.isInteger(cweid) && cweid > 0 ? cweIds([cweid]) : [];
  const wasc = Number.isInteger(wascid) && wascid > 0 ? [`WASC-${wascid}`] : [];
  const alertRef = str(alert.alertRef) || pluginId;
  const base = {
    checkId: `zap:${alertRef}`,
    title: clip(name, LIMITS.title),
    description: clip([htmlToText(alert.desc), htmlToText(alert.otherinfo)].filter(Boolean).join('\n\n'), LIMITS.text),
    remediation: clip(htmlToText(alert.solution), LIMITS.text),
    score: scoreImport({ vectors: [], severity }),
    references: httpUrls([...urlsIn(htmlToText(alert.reference)), ...referencesFor(cwes, []), /^\d+$/.test(pluginId) ? `https://www.zaproxy.org/docs/alerts/${alertRef}/` : '']).slice(0, LIMITS.references),
    tags: cleanTags([...cwes, ...wasc]),
    observedAt: site.created,
    initialStatus: confidence === 'false_positive' ? ('false_positive' as const) : ('open' as const),
  };
  const targets = [...new Set([site.name, site.host, hostOf(site.name)].filter((t): t is string => !!t))];
  const list = instances.length ? instances : [{ uri: site.name }];
  return list.map((instance, i) => {
    const here = instances.length ? `${where}.instances[${i}]` : where;
    if (!isObject(instance)) invalid(here, 'an instance must be an object');
    const uri = str(instance.uri);
    return {
      ...base,
      where: here,
      targets: [...new Set([...targets, ...(hostOf(uri) ? [hostOf(uri)!] : [])])],
      location: [str(instance.method), uri, str(instance.param), str(instance.attack)].join('\u0000'),
      evidence: compact({
        url: evidenceText(uri),
        method: evidenceText(instance.method),
        parameter: evidenceText(instance.param),
        payload: evidenceText(instance.attack),
        // Rule 10112's evidence is the session token it found: the scan's own session, not kept.
        response_indicator: pluginId === SESSION_TOKEN_RULE && str(instance.evidence) ? '<redacted session token>' : evidenceText(instance.evidence),
        other_info: evidenceText(instance.otherinfo),
        confidence,
        plugin_id: pluginId,
        alert_ref: alertRef,
        cwe_ids: cwes,
        wasc_ids: wasc,
        site: evidenceText(site.name),
        tool: 'zap',
        tool_version: site.version,
        tool_severity: str(alert.riskdesc) || null,
      }),
    };
  });
}

/**
 * The OWASP ZAP "Traditional JSON" report (`-J report.json`; the "plus" variant's request
 * and response fields are ignored): site → alerts → instances, one result per instance.
 * Each alert is read whole (its solution and references follow its instances), so the
 * largest alert bounds memory; sites' names are read from the document as it streams.
 */
export async function* readZap(text: TextSource, limits: ReaderLimits, context?: unknown): AsyncGenerator<ReadResult, ReaderOutcome> {
  const walker = new JsonWalker(isAlertPath, limits);
  let complete = true;
  for await (const item of walker.items(text)) {
    const site = siteOf(context ?? walker.skeleton, item.path);
    if (!site.name) complete = false;
    yield* zapAlertResults(item.value, jsonPath(item.path), site);
  }
  const root = walker.skeleton;
  if (!isObject(root) || !('site' in root)) invalid('$', 'no "site" in the document');
  const sites = Array.isArray(root.site) ? root.site : [root.site];
  sites.forEach((s, i) => {
    if (!isObject(s)) invalid(jsonPath(['site', i]), 'a site must be an object');
    if (!str(s['@name'])) invalid(jsonPath(['site', i, '@name']), 'the site has no "@name"');
    if (s.alerts !== undefined && !Array.isArray(s.alerts)) invalid(jsonPath(['site', i, 'alerts']), '"alerts" must be an array');
  });
  return { context: root, complete: complete || context !== undefined };
}
