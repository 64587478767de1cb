// @ts-check

/**
 * A CVSS v3.1 vector explained metric by metric, in words (FIRST's specification, §2).
 * The score itself comes from the API (core/findings/cvss.ts computes it); this only
 * tells a reader what each part of the vector means.
 *
 * @typedef {{ code: string, metric: string, group: 'base' | 'temporal' | 'environmental', value: string, valueName: string, meaning: string }} ExplainedMetric
 */

/** @type {Record<string, { name: string, group: 'base' | 'temporal' | 'environmental', values: Record<string, [string, string]> }>} */
const METRICS = {
  AV: { name: 'Attack Vector', group: 'base', values: {
    N: ['Network', 'Exploitable remotely, across the internet or any routed network.'],
    A: ['Adjacent', 'The attacker must be on the same local or logical network segment.'],
    L: ['Local', 'The attacker needs local access (a shell, or a user opening a file).'],
    P: ['Physical', 'The attacker must touch or handle the device.'],
  } },
  AC: { name: 'Attack Complexity', group: 'base', values: {
    L: ['Low', 'No special conditions: the attack works repeatedly at will.'],
    H: ['High', 'Success depends on conditions outside the attacker\'s control (timing, configuration, a man-in-the-middle position).'],
  } },
  PR: { name: 'Privileges Required', group: 'base', values: {
    N: ['None', 'No account or authorisation is needed.'],
    L: ['Low', 'A basic user account is needed.'],
    H: ['High', 'Administrative privileges are needed.'],
  } },
  UI: { name: 'User Interaction', group: 'base', values: {
    N: ['None', 'No user has to do anything.'],
    R: ['Required', 'A user must take an action, such as clicking a link.'],
  } },
  S: { name: 'Scope', group: 'base', values: {
    U: ['Unchanged', 'The impact stays within the vulnerable component\'s security authority.'],
    C: ['Changed', 'The impact reaches beyond the vulnerable component (e.g. from a web app into the browser or host).'],
  } },
  C: { name: 'Confidentiality', group: 'base', values: {
    H: ['High', 'Total loss of confidentiality: all data in the component can be read.'],
    L: ['Low', 'Some data can be read, without control over what.'],
    N: ['None', 'No data is disclosed.'],
  } },
  I: { name: 'Integrity', group: 'base', values: {
    H: ['High', 'Total loss of integrity: any data can be modified.'],
    L: ['Low', 'Some data can be modified, without control over what or how much.'],
    N: ['None', 'No data can be modified.'],
  } },
  A: { name: 'Availability', group: 'base', values: {
    H: ['High', 'Total loss of availability: the component can be made fully unavailable.'],
    L: ['Low', 'Reduced performance or interruptions.'],
    N: ['None', 'No impact on availability.'],
  } },
  E: { name: 'Exploit Code Maturity', group: 'temporal', values: {
    X: ['Not Defined', 'Not assessed.'], U: ['Unproven', 'No exploit code is known.'], P: ['Proof-of-Concept', 'Proof-of-concept code exists.'],
    F: ['Functional', 'Working exploit code exists.'], H: ['High', 'Exploitation is reliable and widespread or automated.'],
  } },
  RL: { name: 'Remediation Level', group: 'temporal', values: {
    X: ['Not Defined', 'Not assessed.'], O: ['Official Fix', 'The vendor has released a fix.'], T: ['Temporary Fix', 'An official temporary fix exists.'],
    W: ['Workaround', 'An unofficial workaround exists.'], U: ['Unavailable', 'No fix exists.'],
  } },
  RC: { name: 'Report Confidence', group: 'temporal', values: {
    X: ['Not Defined', 'Not assessed.'], U: ['Unknown', 'Reports are unconfirmed.'], R: ['Reasonable', 'Significant details are published.'],
    C: ['Confirmed', 'The vulnerability is confirmed (vendor or reproduction).'],
  } },
};
for (const [code, name] of /** @type {const} */ ([['CR', 'Confidentiality Requirement'], ['IR', 'Integrity Requirement'], ['AR', 'Availability Requirement']])) {
  METRICS[code] = { name, group: 'environmental', values: {
    X: ['Not Defined', 'Not assessed.'], L: ['Low', 'Loss matters little to the organisation.'],
    M: ['Medium', 'Loss has a serious effect on the organisation.'], H: ['High', 'Loss has a catastrophic effect on the organisation.'],
  } };
}
for (const base of ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A']) {
  const source = METRICS[base];
  if (!source) continue;
  METRICS[`M${base}`] = {
    name: `Modified ${source.name}`,
    group: 'environmental',
    values: { X: ['Not Defined', 'The base value applies.'], ...Object.fromEntries(Object.entries(source.values).map(([k, [n, m]]) => [k, [n, `In this environment: ${m.charAt(0).toLowerCase()}${m.slice(1)}`]])) },
  };
}

/**
 * @param {string} vector e.g. `CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`
 * @returns {{ version: string | null, metrics: ExplainedMetric[], unknown: string[] }}
 */
export function explainCvss(vector) {
  const parts = vector.split('/');
  const head = parts[0] ?? '';
  const version = head.startsWith('CVSS:') ? head.slice(5) : null;
  /** @type {ExplainedMetric[]} */
  const metrics = [];
  /** @type {string[]} */
  const unknown = [];
  for (const part of version === null ? parts : parts.slice(1)) {
    const [code = '', value = ''] = part.split(':');
    const metric = METRICS[code];
    const described = metric?.values[value];
    if (!metric || !described) {
      if (part) unknown.push(part);
      continue;
    }
    metrics.push({ code, metric: metric.name, group: metric.group, value, valueName: described[0], meaning: described[1] });
  }
  return { version, metrics, unknown };
}
