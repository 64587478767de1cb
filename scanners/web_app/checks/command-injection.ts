import { activeCheck, around, factors, type Probe, type Proof } from '../active/active-check.ts';
import { pointName } from '../active/injection-points.ts';
import { provesDelay } from '../active/timing.ts';

/** Shell separators that end or wrap the application's command and start ours. */
const SEPARATORS: Array<(v: string, cmd: string) => string> = [
  (v, cmd) => `${v};${cmd}`,
  (v, cmd) => `${v}|${cmd}`,
  (v, cmd) => `${v}&&${cmd}`,
  (v, cmd) => `${v}$(${cmd})`,
  (v, cmd) => `${v}\`${cmd}\``,
  (v, cmd) => `${v}\n${cmd}`,
];

/**
 * Marker first: the shell prints a product of two random numbers that the payload does
 * not contain (`echo $((a*b))`, `set /a a*b` on Windows), so an echo of the input is never
 * taken for execution. Then time: `sleep`, for commands whose output is not shown.
 */
async function injected(probe: Probe): Promise<Proof | null> {
  const v = probe.point.original;
  const { a, b, product } = factors();
  if (!probe.baseline.body.includes(product)) {
    for (const make of [...SEPARATORS.map((s) => (x: string) => s(x, `echo $((${a}*${b}))`)), (x: string) => `${x}&set /a ${a}*${b}`]) {
      const payload = make(v);
      const res = await probe.send(payload);
      if (!res) return null;
      const at = res.body.indexOf(product);
      if (at >= 0) return { payload, technique: `command output (${a}×${b} = ${product}) in the answer`, indicator: around(res.body, at) };
    }
  }
  for (const sep of SEPARATORS.slice(0, 4)) {
    const proof = await provesDelay(probe, (s) => sep(v, `sleep ${s}`), 'time delay (sleep)');
    if (proof) return proof;
  }
  return null;
}

export const commandInjection = activeCheck({
  id: 'web_app:command-injection',
  title: 'OS command injection',
  maxSeverity: 'critical',
  description: 'Appends shell commands to each query parameter and form field after ; | && $( ) ` and newline: an arithmetic marker whose result must appear in the answer, then sleep (confirmed by a 0 s control and a repeat) for commands whose output is not shown.',
  test: injected,
  finding: (point, proof) => ({
    title: `OS command injection in ${pointName(point)}`,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    description: `The value of \`${point.parameter}\` sent to ${point.method} ${point.url} reaches a shell command (${proof.technique}). Anyone who can reach the page runs commands on the server with the application's rights.`,
    remediation: 'Do not build shell commands from input: call the program directly with an argument list (execFile, subprocess with a list), or use a library; validate input against an allow-list.',
    references: ['https://cwe.mitre.org/data/definitions/78.html', 'https://owasp.org/www-community/attacks/Command_Injection'],
    tags: ['web', 'injection', 'command-injection', 'active'],
  }),
});
