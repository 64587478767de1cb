import type { Severity } from '../domain/severity.ts';
import { scoreImport, type ImportScore } from './import-score.ts';
import { childrenNamed, type XmlElement } from './xml-walker.ts';

/** One entry of an NSE script written with nmap's `vulns` library (`<table key="CVE-…">` with title and state). */
export interface NmapVuln {
  key: string;
  title: string;
  state: string;
  ids: string[];
  description: string;
  disclosure: string | null;
  references: string[];
  /** The `scores` table as written (`CVSSv3` → `9.8 (CRITICAL) (CVSS:3.0/…)`, `CVSSv2` → …). */
  scores: Record<string, string>;
  /** `Risk factor: High` from the script's text output (the library leaves it out of the XML). */
  riskFactor: string | null;
}

const keyed = (el: XmlElement | undefined, key: string): XmlElement | undefined => el?.children.find((c) => c.attrs.key === key);
const textOf = (el: XmlElement | undefined): string => (el?.name === 'elem' ? el.text.trim() : '');
const elems = (el: XmlElement | undefined): string[] => childrenNamed(el, 'elem').map(textOf).filter(Boolean);

/** The vulns-library entries of a script's output, or null when it is not such a script. */
export function nmapVulns(script: XmlElement): NmapVuln[] | null {
  const tables = childrenNamed(script, 'table').filter((t) => textOf(keyed(t, 'state')) && textOf(keyed(t, 'title')));
  if (!tables.length) return null;
  const output = script.attrs.output ?? '';
  return tables.map((t) => {
    const title = textOf(keyed(t, 'title'));
    const scores: Record<string, string> = {};
    for (const e of childrenNamed(keyed(t, 'scores'), 'elem')) if (e.attrs.key && textOf(e)) scores[e.attrs.key] = textOf(e);
    return {
      key: t.attrs.key ?? title,
      title,
      state: textOf(keyed(t, 'state')),
      ids: elems(keyed(t, 'ids')),
      description: [...elems(keyed(t, 'description')), textOf(keyed(t, 'description'))].filter(Boolean).join('\n'),
      disclosure: textOf(keyed(t, 'disclosure')) || null,
      references: elems(keyed(t, 'refs')),
      scores,
      riskFactor: riskFactorOf(output, title),
    };
  });
}

/** The `Risk factor:` line of the entry titled `title` in the script's text output, if any. */
function riskFactorOf(output: string, title: string): string | null {
  const lines = output.split('\n').map((l) => l.trim());
  const start = lines.indexOf(title);
  if (start === -1) return null;
  for (const line of lines.slice(start + 1)) {
    if (/^(LIKELY VULNERABLE|VULNERABLE|NOT VULNERABLE|UNKNOWN)\b.*:$/.test(line)) return null;
    const m = /^Risk factor:\s*(High|Medium|Low)\b/i.exec(line);
    if (m) return m[1]!;
  }
  return null;
}

/** Whether the library's state says the target is (or is likely) vulnerable; NOT VULNERABLE and UNKNOWN are not findings. */
export const isVulnerable = (state: string): boolean => /^(LIKELY )?VULNERABLE/i.test(state.trim());

const RISK: Record<string, Severity> = { high: 'high', medium: 'medium', low: 'low' };

/**
 * nmap states facts and gives no severity of its own except in vulns-library entries:
 * their `scores` CVSSv3 (a vector wins, else its number), else the script's risk factor,
 * else the state: VULNERABLE and VULNERABLE (Exploitable) high, VULNERABLE (DoS) and
 * LIKELY VULNERABLE medium. A CVSSv2 score is kept as evidence only (Rampart scores v3).
 */
export function nmapVulnScore(v: NmapVuln): ImportScore {
  const v3 = v.scores.CVSSv3 ?? v.scores.CVSSv31 ?? v.scores.CVSSv30 ?? '';
  const vector = /CVSS:3\.[01]\/[A-Z:/]+/.exec(v3)?.[0];
  const number = /^\s*(\d+(?:\.\d+)?)/.exec(v3)?.[1];
  const state = v.state.toUpperCase();
  const fromState: Severity = state.startsWith('LIKELY') || state.includes('DOS') ? 'medium' : 'high';
  return scoreImport({ vectors: vector ? [vector] : [], score: number, severity: RISK[(v.riskFactor ?? '').toLowerCase()] ?? fromState });
}

/** The vulns-library `scores` element text for evidence (`CVSSv2: 5.0 (MEDIUM) (AV:N/…)`). */
export const scoresText = (v: NmapVuln): string | null => (Object.keys(v.scores).length ? Object.entries(v.scores).map(([k, s]) => `${k}: ${s}`).join('; ') : null);
