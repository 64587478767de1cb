import { activeCheck, around, factors, type Probe, type Proof } from '../active/active-check.ts';
import { pointName } from '../active/injection-points.ts';

/** Expression syntaxes of common template engines, each with the engines that use it. */
const SYNTAXES: Array<{ engines: string; wrap: (expr: string) => string }> = [
  { engines: 'Jinja2, Twig, Nunjucks, Liquid-like', wrap: (e) => `{{${e}}}` },
  { engines: 'FreeMarker, Velocity, JSP EL, JavaScript template literals', wrap: (e) => `\${${e}}` },
  { engines: 'ERB, EJS', wrap: (e) => `<%= ${e} %>` },
  { engines: 'Ruby and Pug interpolation, Thymeleaf', wrap: (e) => `#{${e}}` },
  { engines: 'Thymeleaf inline', wrap: (e) => `[[\${${e}}]]` },
  { engines: 'Smarty', wrap: (e) => `{${e}}` },
];

/**
 * A product of two random numbers written as an expression in each engine's syntax: it
 * appears in the answer only if the server evaluated the expression (the payload itself
 * contains the factors, never the product).
 */
async function evaluated(probe: Probe): Promise<Proof | null> {
  const { a, b, product } = factors();
  if (probe.baseline.body.includes(product)) return null;
  for (const { engines, wrap } of SYNTAXES) {
    const payload = `${probe.point.original}${wrap(`${a}*${b}`)}`;
    const res = await probe.send(payload);
    if (!res) return null;
    const at = res.body.indexOf(product);
    if (at >= 0) return { payload, technique: `template expression evaluated (${a}*${b} = ${product}; syntax of ${engines})`, indicator: around(res.body, at) };
  }
  return null;
}

export const templateInjection = activeCheck({
  id: 'web_app:template-injection',
  title: 'Server-side template injection',
  maxSeverity: 'critical',
  description: 'Sends a multiplication of two random numbers in the expression syntax of common template engines ({{ }}, ${ }, <%= %>, #{ }, [[${ }]], { }) in each query parameter and form field; reports an answer that contains the product.',
  test: evaluated,
  finding: (point, proof) => ({
    title: `Server-side template injection in ${pointName(point)}`,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    description: `The value of \`${point.parameter}\` sent to ${point.method} ${point.url} is compiled as part of a server-side template (${proof.technique}). Template expressions usually reach the language runtime: reading files and running code on the server.`,
    remediation: 'Pass input to templates as data (a variable the template prints, auto-escaped), never as part of the template source; use a sandboxed engine where templates are user-editable.',
    references: ['https://cwe.mitre.org/data/definitions/1336.html', 'https://portswigger.net/research/server-side-template-injection'],
    tags: ['web', 'injection', 'ssti', 'active'],
  }),
});
