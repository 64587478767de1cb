import test from 'ava';
import type { ImportedResult } from '../../../core/imports/import-result.ts';
import { readZap } from '../../../core/imports/zap-reader.ts';
import { fixtureText, readAll } from './_read.ts';

const alert = (over: Record<string, unknown> = {}) => ({ pluginid: '40012', alertRef: '40012', name: 'Cross Site Scripting (Reflected)', riskcode: '3', confidence: '2', desc: '<p>XSS</p>', solution: '<p>Encode output.</p>', reference: '<p>https://owasp.org/www-community/attacks/xss/</p>', cweid: '79', wascid: '8', instances: [{ uri: 'https://app.example/search?q=x', method: 'GET', param: 'q', attack: '<script>alert(1)</script>', evidence: '<script>alert(1)</script>', otherinfo: '' }], ...over });

test('one result per instance with the specification\'s evidence keys; confidence 0 arrives as false_positive', async (t) => {
  const text = JSON.stringify({ '@programName': 'ZAP', '@version': '2.16.1', created: '2026-02-25T11:09:49.007Z', site: [{ '@name': 'https://app.example', '@host': 'app.example', alerts: [alert(), alert({ alertRef: '40012-fp', confidence: '0' }), alert({ pluginid: '10109', alertRef: '10109', riskcode: '0', instances: [] })] }] });
  const { results } = await readAll(readZap, text);
  const [xss, fp, info] = results as ImportedResult[];
  t.like(xss, { title: 'Cross Site Scripting (Reflected)', description: 'XSS', remediation: 'Encode output.', initialStatus: 'open', observedAt: Date.parse('2026-02-25T11:09:49.007Z') });
  t.deepEqual(xss!.score, { severity: 'high', cvss: 7, cvssVector: '', basis: 'severity' });
  t.like(xss!.evidence, { url: 'https://app.example/search?q=x', method: 'GET', parameter: 'q', payload: '<script>alert(1)</script>', response_indicator: '<script>alert(1)</script>', confidence: 'medium' });
  t.deepEqual(xss!.tags, ['CWE-79', 'WASC-8']);
  t.like(fp, { initialStatus: 'false_positive' });
  t.like(info, { where: '$.site[0].alerts[2]', location: ['', 'https://app.example', '', ''].join('\u0000') }, 'an alert without instances is one result at the site');
});

test('a site whose name follows its alerts, and the one-site object of old reports', async (t) => {
  const late = `{"site": [{"alerts": [${JSON.stringify(alert())}], "@ssl": "true", "@note": "${'x'.repeat(200)}", "@name": "https://late.example"}]}`;
  const { results, passes } = await readAll(readZap, late, 64);
  t.is(passes, 2);
  t.deepEqual((results[0] as ImportedResult).targets, ['https://late.example', 'late.example', 'app.example']);
  const old = JSON.stringify({ '@version': '2.7.0', site: { '@name': 'https://old.example', alerts: [alert()] } });
  t.is((await readAll(readZap, old)).results.length, 1);
});

test('the real report: 54 instances, secrets of the scan\'s own session masked', async (t) => {
  const { results } = await readAll(readZap, fixtureText('zap-2.14.0-baseline.json'), 1000);
  t.is(results.length, 54);
  const session = (results as ImportedResult[]).find((r) => r.checkId === 'zap:10112')!;
  t.is(session.evidence.response_indicator, '<redacted session token>');
  t.true((results as ImportedResult[]).every((r) => r.references.every((u) => /^https?:\/\//.test(u))));
});
