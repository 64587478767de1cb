import test from 'ava';
import type { ImportedResult } from '../../../core/imports/import-result.ts';
import { readNuclei } from '../../../core/imports/nuclei-reader.ts';
import { readAll } from './_read.ts';

const line = (r: Record<string, unknown>) => JSON.stringify(r);

test('nuclei v2 field names (templateID, matched, matcher_name, extracted_results) and Markdown reference lists', async (t) => {
  const text = [
    line({ templateID: 'openssh5.3-detect', info: { name: 'OpenSSH 5.3 Detection', severity: 'low', tags: 'network,openssh', reference: '- http://seclists.org/fulldisclosure/2016/Jul/51\n- https://security-tracker.debian.org/tracker/CVE-2016-6210\n' }, type: 'network', host: 'https://nuclei-example.com', matched: 'nuclei-example.com:22', ip: '178.21.15.56', timestamp: '2021-05-20T11:11:01.667748+03:00' }),
    '',
    line({ templateID: 'tech-detect', info: { name: 'Wappalyzer Technology Detection', severity: 'info' }, matcher_name: 'bootstrap', type: 'http', host: 'http://127.0.0.1:8080/WebGoat', matched: 'http://127.0.0.1:8080/WebGoat', extracted_results: ['b', 'a'] }),
    '\r',
  ].join('\n');
  const { results } = await readAll(readNuclei, text, 17);
  const [ssh, tech] = results as ImportedResult[];
  t.like(ssh, { where: 'line 1', checkId: 'nuclei:openssh5.3-detect', title: 'OpenSSH 5.3 Detection', observedAt: Date.parse('2021-05-20T08:11:01.667Z') });
  t.deepEqual(ssh!.references, ['http://seclists.org/fulldisclosure/2016/Jul/51', 'https://security-tracker.debian.org/tracker/CVE-2016-6210']);
  t.deepEqual(ssh!.tags, ['network', 'openssh']);
  t.deepEqual(ssh!.targets, ['https://nuclei-example.com', 'nuclei-example.com', '178.21.15.56'], 'matched-at only by its host: it differs per result');
  t.like(tech, { where: 'line 3', title: 'Wappalyzer Technology Detection (bootstrap)' });
  t.like(tech!.evidence, { url: 'http://127.0.0.1:8080/WebGoat', matcher_name: 'bootstrap', extracted_results: ['b', 'a'] });
  t.is(tech!.location, ['http://127.0.0.1:8080/WebGoat', 'bootstrap', '', 'a\u0001b'].join('\u0000'), 'extractions are order-independent');
});

test('what a nuclei line must have, named by line', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['[1, 2]', /expected a JSON object/],
    [line({ info: { severity: 'low' } }), /"template-id" is missing/],
    [line({ 'template-id': 'x' }), /"info" is missing/],
    [line({ 'template-id': 'x', info: { severity: 'urgent' } }), /info\.severity/],
  ];
  for (const [bad, message] of cases) {
    const error = await t.throwsAsync(readAll(readNuclei, `${line({ 'template-id': 'ok', info: { severity: 'info' } })}\n\n${bad}\n`));
    t.is((error as { where?: string }).where, 'line 3');
    t.regex(error!.message, message);
  }
});
