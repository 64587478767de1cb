import test from 'ava';
import type { FindingReport, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { commandInjection } from '../../../scanners/web_app/checks/command-injection.ts';
import { pathTraversal } from '../../../scanners/web_app/checks/path-traversal.ts';
import { sqlInjection } from '../../../scanners/web_app/checks/sql-injection.ts';
import { templateInjection } from '../../../scanners/web_app/checks/template-injection.ts';
import { xssReflected } from '../../../scanners/web_app/checks/xss-reflected.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';
import { startInjectionSite, type InjectionSite } from '../../_helpers/targets/injection-sites.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';

const MARIADB = 'mysql://root@127.0.0.1:3306/test';
let vulnerable: InjectionSite;
let safe: InjectionSite;
let withMariadb = false;

test.before(async () => {
  withMariadb = await serviceAvailable('MariaDB (time-based SQL injection target)', MARIADB);
  vulnerable = await startInjectionSite('vulnerable', withMariadb ? MARIADB : undefined);
  safe = await startInjectionSite('safe', withMariadb ? MARIADB : undefined);
});
test.after.always(() => Promise.all([vulnerable?.close(), safe?.close()]));

/** A small delay keeps time-based tests fast (600 ms asked; a shell spawn here takes 250-400 ms, so less would be noise). The tests run one at a time: timing needs a quiet target. */
const ACTIVE = { active: true, max_depth: 2, max_pages: 30, time_delay_ms: 600 };

const runs = new Map<string, Promise<FindingReport[]>>();

/** The check's findings on a site (each check runs once per site; later tests reuse the run). */
function findings(check: ScannerCheck, site: InjectionSite): Promise<FindingReport[]> {
  const key = `${check.id} ${site.url}`;
  if (!runs.has(key)) {
    runs.set(key, runCheck(check, urlTarget(`${site.url}/`), { timeoutMs: 60_000, options: ACTIVE }).then((a) => {
      if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
      return a.findings;
    }));
  }
  return runs.get(key)!;
}

/** `<check> <METHOD> <path> <parameter>` of each finding, as the sites list what they planted. */
function placesOf(check: ScannerCheck, found: FindingReport[]): string[] {
  return found.map((f) => `${check.id} ${f.evidence!.method} ${new URL(String(f.evidence!.url)).pathname} ${f.evidence!.parameter}`).sort();
}

const plantedFor = (check: ScannerCheck) => vulnerable.planted.filter((p) => p.startsWith(`${check.id} `)).sort();

for (const check of [xssReflected, sqlInjection, pathTraversal, commandInjection, templateInjection]) {
  test.serial(`${check.id}: finds exactly what the vulnerable app has, and nothing on its safe twin`, async (t) => {
    const found = await findings(check, vulnerable);
    t.deepEqual(placesOf(check, found), plantedFor(check));
    for (const f of found) {
      // Evidence: the request that proved it and the part of the answer that shows it.
      t.truthy(f.evidence!.payload);
      t.true(String(f.evidence!.request).startsWith(`${f.evidence!.method} ${vulnerable.url}/`), String(f.evidence!.request));
      t.truthy(f.evidence!.response_indicator);
      t.truthy(f.location);
    }
    t.deepEqual(await findings(check, safe), []);
  });
}

test.serial('without options.active nothing is sent beyond nothing: the check only logs why', async (t) => {
  const a = await runCheck(sqlInjection, urlTarget(`${vulnerable.url}/`), { timeoutMs: 10_000, options: { max_pages: 30 } });
  t.is(a.status, 'completed');
  t.deepEqual(a.findings, []);
  t.regex(a.logs.map((l) => l.message).join('\n'), /active checks are off/);
});

test.serial('each kind of proof says how it was made: error message, boolean condition, time delay, marker', async (t) => {
  const sql = await findings(sqlInjection, vulnerable);
  const technique = (path: string) => String(sql.find((f) => String(f.evidence!.url).endsWith(path))?.evidence?.technique);
  t.is(technique('/item'), 'database error message');
  t.regex(String(sql.find((f) => String(f.evidence!.url).endsWith('/item'))!.evidence!.response_indicator), /unrecognized token/);
  t.regex(technique('/product'), /^boolean condition/);
  if (withMariadb) t.regex(technique('/track'), /^time delay \(MySQL\/MariaDB sleep\)/);
  const cmd = await findings(commandInjection, vulnerable);
  t.regex(String(cmd.find((f) => String(f.evidence!.url).endsWith('/lookup'))!.evidence!.technique), /^command output/);
  t.regex(String(cmd.find((f) => String(f.evidence!.url).endsWith('/ping'))!.evidence!.technique), /^time delay \(sleep\)/);
  const [traversal] = await findings(pathTraversal, vulnerable);
  t.regex(String(traversal!.evidence!.response_indicator), /root:x:0:0:/);
  t.is(traversal!.cvss_vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N');
});

test.serial('the request budget bounds what is sent, and running out is a warning, not silence', async (t) => {
  const a = await runCheck(sqlInjection, urlTarget(`${vulnerable.url}/`), { timeoutMs: 30_000, options: { ...ACTIVE, max_requests: 10 } });
  t.is(a.status, 'completed');
  t.regex(a.logs.filter((l) => l.level === 'WARN').map((l) => l.message).join('\n'), /request budget of 10 used up: \d+ of \d+ injection point\(s\) not tested/);
});
