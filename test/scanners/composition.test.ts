import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCvss31 } from '../../core/findings/cvss.ts';
import { loadPlugins, PROJECT_ROOT } from '../../core/plugins/load-plugins.ts';
import type { PluginRegistry } from '../../core/plugins/plugin-registry.ts';
import { planChecks } from '../../core/scans/scan-planner.ts';
import type { ScanType } from '../../core/plugin-api/index.ts';
import type { AssetType } from '../../core/domain/asset-type.ts';

const MINE = ['ssl', 'dns', 'web_app', 'api_discovery', 'network'];
let registry: PluginRegistry;

test.before(async () => {
  registry = await loadPlugins({ builtin: 'all', external: [], baseDir: PROJECT_ROOT });
});

const plan = (scanType: ScanType, assetType: AssetType, categories: string[] = []) => planChecks(registry, scanType, assetType, categories).map((p) => p.checkId);
const prefixes = (ids: string[]) => [...new Set(ids.map((id) => id.split(':')[0]))].sort();

test('each built-in scanner loads, and its README documents every check id', (t) => {
  for (const name of MINE) {
    const scanner = registry.scanners().find((s) => s.plugin.name === name);
    t.truthy(scanner, name);
    const readme = readFileSync(join(PROJECT_ROOT, 'scanners', name, 'README.md'), 'utf8');
    for (const check of scanner!.plugin.checks) t.true(readme.includes(`\`${check.id}\``), `${check.id} in ${name}/README.md`);
  }
  // The port scanner keeps its vectors in scanners/_lib/risky-exposures.ts (shared with network); its README lists them too.
  const port = readFileSync(join(PROJECT_ROOT, 'scanners', 'port', 'README.md'), 'utf8');
  t.true(port.includes('`port:tcp-services`'));
  const vectors = readFileSync(join(PROJECT_ROOT, 'scanners', '_lib', 'risky-exposures.ts'), 'utf8').match(/CVSS:3\.1\/[A-Z:/]+/g) ?? [];
  t.true(vectors.length >= 4);
  for (const v of vectors) t.true(port.includes(v), `${v} in port/README.md`);
});

test('every CVSS vector written in the scanner sources parses, and none exceeds its check maxSeverity', (t) => {
  const rank = { info: 0, low: 1, medium: 2, high: 3, critical: 4 } as const;
  for (const name of MINE) {
    const scanner = registry.scanners().find((s) => s.plugin.name === name)!;
    for (const check of scanner.plugin.checks) {
      const file = readFileSync(new URL(`../../scanners/${name}/checks/`, import.meta.url).pathname + fileOf(name, check.id), 'utf8');
      const vectors = file.match(/CVSS:3\.1\/[A-Z:/]+/g) ?? [];
      for (const v of vectors) {
        const severity = parseCvss31(v).severity;
        t.true(rank[severity] <= rank[check.maxSeverity], `${check.id}: ${v} is ${severity} > ${check.maxSeverity}`);
      }
    }
  }
});

/** The check file: named after the check, except where the id is shorter than the export's concept. */
function fileOf(scanner: string, id: string): string {
  const short = id.split(':')[1]!;
  const renamed: Record<string, string> = { 'web_app:trace': 'trace-method', 'api_discovery:openapi': 'api-documents' };
  return `${renamed[id] ?? short}.ts`;
}

test('full runs every applicable scanner for the asset type', (t) => {
  t.deepEqual(prefixes(plan('full', 'url')), ['api_discovery', 'port', 'ssl', 'web_app']);
  t.deepEqual(prefixes(plan('full', 'domain')), ['api_discovery', 'dns', 'port', 'ssl', 'web_app']);
  t.deepEqual(prefixes(plan('full', 'ip')), ['port', 'ssl']);
  const network = plan('full', 'network');
  t.deepEqual(network.filter((id) => !id.startsWith('ssl:')).sort(), ['network:host-discovery', 'network:services'], 'network:services replaces the bare port scan');
  t.is(network.filter((id) => id.startsWith('ssl:')).length, 11, 'ssl inspects the TLS ports found on the network\'s hosts');
});

test('specific scan types of both variants map to their scanners', (t) => {
  t.deepEqual(prefixes(plan('web_app', 'url')), ['web_app']);
  t.deepEqual(plan('api', 'url'), plan('api_discovery', 'url'));
  t.deepEqual(prefixes(plan('api', 'url')), ['api_discovery']);
  t.deepEqual(prefixes(plan('ssl', 'domain')), ['ssl']);
  t.deepEqual(prefixes(plan('dns', 'domain')), ['dns']);
  t.deepEqual(plan('dns', 'url'), [], 'dns checks are for domain assets');
  t.deepEqual(plan('ssl', 'network'), [], 'an ssl scan of a network has nothing to inspect: 400 scan_type_not_supported');
  t.deepEqual(plan('port', 'network'), ['port:tcp-services'], 'variant B port scan of a network keeps the port scanner');
  t.deepEqual(plan('network', 'network').sort(), ['network:host-discovery', 'network:services']);
  t.deepEqual(plan('network', 'ip'), ['port:tcp-services'], 'variant A network scan of one IP is its port scan');
});

test('quick keeps only checks that can be critical or high', (t) => {
  t.deepEqual(plan('quick', 'domain').sort(), ['api_discovery:unauthenticated-endpoints', 'dns:dangling-cname', 'port:tcp-services', 'ssl:weak-ciphers', 'web_app:cors', 'web_app:exposed-files']);
  // Active checks (attack payloads) are planned only when the scan asks for them.
  t.deepEqual(planChecks(registry, 'quick', 'domain', [], { active: true }).map((p) => p.checkId).filter((id) => id.startsWith('web_app:')).sort(), [
    'web_app:command-injection', 'web_app:cors', 'web_app:exposed-files', 'web_app:path-traversal', 'web_app:sql-injection', 'web_app:template-injection',
  ]);
  t.deepEqual(planChecks(registry, 'web_app', 'url', [], { active: true }).length - planChecks(registry, 'web_app', 'url').length, 5);
  t.deepEqual(plan('quick', 'network'), ['network:services', 'ssl:weak-ciphers']);
});

test('custom keeps the given categories', (t) => {
  t.deepEqual(plan('custom', 'domain', ['email']).sort(), ['dns:dmarc', 'dns:spf']);
  t.deepEqual(plan('custom', 'network', ['ports', 'certificate']).sort(), ['network:services', 'ssl:cert-hostname', 'ssl:cert-self-signed', 'ssl:cert-signature', 'ssl:cert-untrusted', 'ssl:cert-validity', 'ssl:cert-weak-key']);
  t.deepEqual(plan('custom', 'network', ['certificate']), [], 'without port discovery a network has no TLS endpoint for ssl');
  t.deepEqual(plan('custom', 'url', ['certificate']).sort(), ['ssl:cert-hostname', 'ssl:cert-self-signed', 'ssl:cert-signature', 'ssl:cert-untrusted', 'ssl:cert-validity', 'ssl:cert-weak-key']);
});
