import { ImportFileError } from './import-file-error.ts';
import type { ImportedResult, ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { scoreImport } from './import-score.ts';
import { clip, cleanTags, compact, cveIds, evidenceText, httpUrls, LIMITS, referencesFor } from './import-text.ts';
import { isVulnerable, nmapVulns, nmapVulnScore, scoresText } from './nmap-vulns.ts';
import { childNamed, childrenNamed, XmlWalker, type XmlElement } from './xml-walker.ts';

/** Each host stands alone: its addresses and names come before its ports. */
const NO_CONTEXT: ReaderOutcome = { context: null, complete: true };

function invalid(where: string, message: string): never {
  throw new ImportFileError(`${message} (an nmap XML report is <nmaprun> with <host> elements holding <address>, <ports> and <hostscript>; write it with nmap -oX)`, where);
}

interface Run {
  version: string | null;
  start: number | null;
}

interface Host {
  address: string;
  targets: string[];
  hostnames: string[];
  observedAt: number | null;
  xpath: string;
}

const epochMs = (v: string | undefined): number | null => (v && /^\d+$/.test(v) ? Number(v) * 1000 : null);

/** An NSE script's result: one per vulns-library entry that is vulnerable, else one for its output. */
function scriptResults(script: XmlElement, where: string, host: Host, run: Run, place: string, base: Record<string, unknown>): ReadResult[] {
  const id = script.attrs.id;
  if (!id) invalid(`line ${script.line}`, '<script> has no id');
  const output = script.attrs.output ?? '';
  if (/^\s*ERROR: Script execution failed/.test(output)) return [{ where, skipped: 'script error' }];
  const vulns = nmapVulns(script);
  const common = { where, targets: host.targets, checkId: `nmap:${id}`, remediation: '', observedAt: host.observedAt, initialStatus: 'open' as const };
  if (!vulns) {
    return [{
      ...common,
      location: [host.address, place].join('\u0000'),
      title: clip(`${id} on ${place === 'host' ? host.address : place}`, LIMITS.title),
      description: clip(output.trim(), LIMITS.text),
      score: scoreImport({ vectors: [], severity: 'info' }),
      evidence: compact({ ...base, script: id, output: evidenceText(output.trim()), tool: 'nmap', tool_version: run.version }),
      references: [`https://nmap.org/nsedoc/scripts/${encodeURIComponent(id)}.html`],
      tags: cleanTags(['nmap', id]),
    }];
  }
  return vulns.map((v, i): ReadResult => {
    const here = `${where}/table[${i + 1}]`;
    if (!isVulnerable(v.state)) return { where: here, skipped: `vulns state ${v.state}` };
    const cves = cveIds([v.key, ...v.ids]);
    const score = nmapVulnScore(v);
    return {
      ...common,
      where: here,
      location: [host.address, place, v.key].join('\u0000'),
      title: clip(cves[0] && !v.title.includes(cves[0]) ? `${cves[0]}: ${v.title}` : v.title, LIMITS.title),
      description: clip(v.description, LIMITS.text),
      score,
      evidence: compact({
        ...base,
        script: id,
        vuln_id: evidenceText(v.key),
        state: evidenceText(v.state),
        ids: v.ids.slice(0, LIMITS.listItems),
        cve_ids: cves,
        disclosure: v.disclosure,
        scores: evidenceText(scoresText(v)),
        risk_factor: v.riskFactor,
        tool: 'nmap',
        tool_version: run.version,
      }),
      references: httpUrls([...v.references, ...referencesFor([], cves), `https://nmap.org/nsedoc/scripts/${encodeURIComponent(id)}.html`]).slice(0, LIMITS.references),
      tags: cleanTags(['nmap', id, ...cves]),
    };
  });
}

/** The results of one open port: the port itself (with its service) and its scripts. */
function portResults(port: XmlElement, where: string, host: Host, run: Run): ReadResult[] {
  const protocol = port.attrs.protocol;
  const portid = port.attrs.portid;
  if (!protocol || !portid || !/^\d+$/.test(portid)) invalid(`line ${port.line}`, '<port> needs protocol and a numeric portid');
  const state = childNamed(port, 'state')?.attrs.state;
  if (!state) invalid(`line ${port.line}`, '<port> has no <state>');
  if (state !== 'open') return [{ where, skipped: `port ${state}` }];
  const service = childNamed(port, 'service')?.attrs ?? {};
  const cpes = childrenNamed(childNamed(port, 'service'), 'cpe').map((c) => c.text.trim()).filter(Boolean);
  const place = `${portid}/${protocol}`;
  const product = [service.product, service.version, service.extrainfo].filter(Boolean).join(' ');
  const base = { host: host.address, hostnames: host.hostnames, port: Number(portid), protocol };
  const serviceEvidence = {
    service: service.name ?? null,
    product: evidenceText(service.product),
    version: evidenceText(service.version),
    extra_info: evidenceText(service.extrainfo),
    service_method: service.method ?? null,
    cpe: cpes.slice(0, LIMITS.listItems),
  };
  const open: ImportedResult = {
    where,
    targets: host.targets,
    checkId: 'nmap:open-port',
    location: [host.address, place].join('\u0000'),
    title: clip(`Open port ${place}${service.name ? `: ${service.name}` : ''}${product ? ` (${product})` : ''}`, LIMITS.title),
    description: `nmap found ${place} open on ${host.address}${service.name ? ` running ${service.name}${product ? ` (${product})` : ''}` : ''}${service.method === 'table' ? '; the service name is nmap\'s guess from the port number, not a probe' : ''}.`,
    remediation: '',
    score: scoreImport({ vectors: [], severity: 'info' }),
    evidence: compact({ ...base, state, reason: childNamed(port, 'state')?.attrs.reason ?? null, ...serviceEvidence, tool: 'nmap', tool_version: run.version }),
    references: [],
    tags: cleanTags(['nmap', 'open-port', service.name]),
    observedAt: host.observedAt,
    initialStatus: 'open',
  };
  const scripts = childrenNamed(port, 'script').flatMap((s, i) => scriptResults(s, `${where}/script[${i + 1}]`, host, run, place, { ...base, service: service.name ?? null }));
  return [open, ...scripts];
}

function hostFrom(el: XmlElement, index: number, run: Run): Host {
  const xpath = `/nmaprun/host[${index}]`;
  const addresses = childrenNamed(el, 'address').filter((a) => a.attrs.addrtype === 'ipv4' || a.attrs.addrtype === 'ipv6').map((a) => a.attrs.addr ?? '').filter(Boolean);
  if (!addresses.length) invalid(`line ${el.line}`, 'the <host> has no IPv4 or IPv6 <address>');
  const hostnames = [...new Set(childrenNamed(childNamed(el, 'hostnames'), 'hostname').map((h) => (h.attrs.name ?? '').toLowerCase()).filter(Boolean))];
  return { address: addresses[0]!, targets: [...new Set([...hostnames, ...addresses])], hostnames, observedAt: epochMs(el.attrs.starttime) ?? epochMs(el.attrs.endtime) ?? run.start, xpath };
}

/**
 * nmap's XML output (`nmap -oX`): one result per open port (the service nmap found on it),
 * one per NSE script output on a port or a host, and one per vulnerable entry of scripts
 * built on nmap's vulns library. Closed and filtered ports, entries that are NOT
 * VULNERABLE and scripts that failed are counted as skipped. Hosts are read one at a
 * time; a file cut short (an interrupted scan has no `</nmaprun>`) is refused.
 */
export async function* readNmap(text: TextSource, limits: ReaderLimits): AsyncGenerator<ReadResult, ReaderOutcome> {
  const walker = new XmlWalker((path) => path.length === 2 && path[1] === 'host', limits);
  let index = 0;
  for await (const el of walker.items(text)) {
    if (walker.rootName !== 'nmaprun') break;
    index += 1;
    const run = { version: walker.rootAttrs.version ?? null, start: epochMs(walker.rootAttrs.start) };
    const host = hostFrom(el, index, run);
    const ports = childrenNamed(childNamed(el, 'ports'), 'port');
    for (const [i, port] of ports.entries()) yield* portResults(port, `${host.xpath}/ports/port[${i + 1}]`, host, run);
    const hostScripts = childrenNamed(childNamed(el, 'hostscript'), 'script');
    for (const [i, script] of hostScripts.entries()) yield* scriptResults(script, `${host.xpath}/hostscript/script[${i + 1}]`, host, run, 'host', { host: host.address, hostnames: host.hostnames });
  }
  if (walker.rootName !== 'nmaprun') invalid('line 1', `the root element is <${walker.rootName ?? ''}>, not <nmaprun>`);
  return NO_CONTEXT;
}
