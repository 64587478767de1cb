import test from 'ava';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCvss31 } from '../../core/findings/cvss.ts';
import { loadPlugins, PROJECT_ROOT } from '../../core/plugins/load-plugins.ts';
import type { ScannerPlugin } from '../../core/plugin-api/index.ts';
import { REACH } from '../../scanners/_lib/reach.ts';
import { VECTORS } from '../../scanners/_lib/risky-exposures.ts';
import { DEFAULT_LOGIN_USERS } from '../../scanners/_lib/service-info.ts';
import { DISCOVERY_PORTS } from '../../scanners/network/host-discovery.ts';
import { COMMON_PATHS } from '../../scanners/api_discovery/openapi-documents.ts';
import { GRAPHQL_PATHS } from '../../scanners/api_discovery/checks/graphql-introspection.ts';
import { STACK_SIGNATURES } from '../../scanners/api_discovery/checks/verbose-errors.ts';
import { DEFAULT_SUBDOMAINS } from '../../scanners/dns/wordlist.ts';
import { WEAK_FAMILIES } from '../../scanners/ssl/checks/weak-ciphers.ts';
import { PQ_GROUPS } from '../../scanners/ssl/raw/tls-names.ts';
import { REDIRECT_PARAMS } from '../../scanners/web_app/checks/open-redirect.ts';
import { HEADER_RULES } from '../../scanners/web_app/checks/security-headers.ts';
import { DIRECTORY_ARCHIVES, DIRECTORY_NAMES, FILE_SUFFIXES, ROOT_NAMES } from '../../scanners/web_app/sensitive-files.ts';

// Issue 18: the scanners' READMEs list every check with its findings, severity, CVSS vector
// and false-positive notes. These tests keep the lists true as checks are added or changed:
// each check id and title, every vector and finding title written in a scanner's code, and
// the lists the code exports must appear in that scanner's README.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCANNERS = join(ROOT, 'scanners');

/** Shared code whose findings a scanner reports as its own (the port scan's findings). */
const SHARED_FINDINGS: Record<string, string[]> = {
  port: ['_lib/risky-exposures.ts'],
  network: ['_lib/risky-exposures.ts'],
};

let scanners: ScannerPlugin[] = [];

test.before(async () => {
  const registry = await loadPlugins({ builtin: 'all', external: [], baseDir: PROJECT_ROOT });
  // Built-in scanners only: those whose module lives in scanners/<name>/.
  scanners = registry
    .scanners()
    .filter((e) => e.source === 'builtin' && fileURLToPath(e.moduleUrl).startsWith(`${SCANNERS}/`))
    .map((e) => e.plugin);
});

/** A README with line breaks and runs of spaces as one space: wrapping a line must not hide a phrase. */
const readme = (name: string) => readFileSync(join(SCANNERS, name, 'README.md'), 'utf8').replace(/\s+/g, ' ');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(f) && !f.endsWith('.d.mts') ? [path] : [];
  });
}

/** The code a scanner's findings are written in: its folder and the shared files it reports from. */
function codeOf(name: string): Array<{ file: string; text: string }> {
  const files = [...sourceFiles(join(SCANNERS, name)), ...(SHARED_FINDINGS[name] ?? []).map((f) => join(SCANNERS, f))];
  return files.map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

/** Every CVSS 3.1 vector written as a literal in the code. */
function vectorsIn(text: string): string[] {
  return [...new Set(text.match(/CVSS:3\.1\/[A-Z]+:[A-Z](?:\/[A-Z]+:[A-Z])*/g) ?? [])];
}

/**
 * The fixed text of titles in the code: quoted strings and the literal start of template
 * strings on `title:` lines (`Directory listing at ${…}` gives "Directory listing at ").
 * Short joiners (", ") are left out.
 */
function titleTextsIn(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const at = line.search(/\btitle:/);
    if (at < 0) continue;
    const rest = line.slice(at + 'title:'.length);
    for (const m of rest.matchAll(/'((?:[^'\\]|\\.)*)'/g)) out.add(m[1]!);
    for (const m of rest.matchAll(/`([^`$]*)\$\{/g)) out.add(m[1]!);
  }
  return [...out].filter((t) => t.trim().length >= 6);
}

test('every built-in scanner has a README and is listed in scanners/README.md', (t) => {
  t.deepEqual(scanners.map((s) => s.name).sort(), ['api_discovery', 'dns', 'network', 'port', 'ssl', 'web_app']);
  const index = readFileSync(join(SCANNERS, 'README.md'), 'utf8');
  const missing: string[] = [];
  for (const s of scanners) {
    if (!existsSync(join(SCANNERS, s.name, 'README.md'))) missing.push(`scanners/${s.name}/README.md`);
    const row = index.split('\n').find((line) => line.startsWith(`| \`${s.name}\` |`));
    if (!row) missing.push(`a row for ${s.name} in scanners/README.md`);
    for (const check of s.checks) if (row && !row.includes(` ${check.id.slice(s.name.length + 1)}`)) missing.push(`${check.id} in the row of ${s.name} in scanners/README.md`);
    if (row && !row.includes(`| ${s.checks.length}: `)) missing.push(`the check count ${s.checks.length} in the row of ${s.name}`);
    if (!index.includes(`(${s.name}/README.md)`)) missing.push(`a link to ${s.name}/README.md in scanners/README.md`);
  }
  t.deepEqual(missing, []);
});

test('every check id and check title of every scanner is in its README', (t) => {
  const missing: string[] = [];
  for (const s of scanners) {
    const doc = readme(s.name);
    for (const check of s.checks) {
      if (!doc.includes(`\`${check.id}\``)) missing.push(`${s.name}: check ${check.id}`);
      if (!doc.includes(check.title)) missing.push(`${s.name}: title "${check.title}" of ${check.id}`);
    }
  }
  t.deepEqual(missing, []);
});

test('every CVSS vector written in a scanner\'s code is in its README', (t) => {
  const missing: string[] = [];
  for (const s of scanners) {
    const doc = readme(s.name);
    for (const { file, text } of codeOf(s.name)) {
      for (const vector of vectorsIn(text)) if (!doc.includes(`\`${vector}\``)) missing.push(`${s.name}: ${vector} (${file})`);
    }
  }
  t.deepEqual(missing, []);
});

test('every fixed finding title text in a scanner\'s code is in its README', (t) => {
  const missing: string[] = [];
  for (const s of scanners) {
    const doc = readme(s.name);
    for (const { file, text } of codeOf(s.name)) {
      for (const title of titleTextsIn(text)) if (!doc.includes(title)) missing.push(`${s.name}: "${title}" (${file})`);
    }
  }
  t.deepEqual(missing, []);
});

test('every CVSS vector a README writes is a valid CVSS 3.1 vector', (t) => {
  for (const s of scanners) {
    for (const vector of vectorsIn(readme(s.name))) t.notThrows(() => parseCvss31(vector), `scanners/${s.name}/README.md: ${vector}`);
  }
});

test('the lists the scanners export are documented in full', (t) => {
  const missing: string[] = [];
  const has = (name: string, items: readonly string[], what: string) => {
    const doc = readme(name);
    for (const item of items) if (!doc.includes(`\`${item}\``)) missing.push(`${name}: ${what} \`${item}\``);
  };
  has('web_app', [...ROOT_NAMES, ...DIRECTORY_NAMES], 'the sensitive name');
  has('web_app', FILE_SUFFIXES, 'the backup suffix');
  has('web_app', DIRECTORY_ARCHIVES.map((ext) => `/<dir>${ext}`), 'the directory archive');
  has('web_app', REDIRECT_PARAMS, 'the redirect parameter');
  has('web_app', HEADER_RULES.map((r) => r.header), 'the header');
  has('api_discovery', COMMON_PATHS, 'the document path');
  has('api_discovery', GRAPHQL_PATHS, 'the GraphQL path');
  has('api_discovery', STACK_SIGNATURES.map((s) => s.stack), 'the stack');
  has('ssl', WEAK_FAMILIES.map((f) => f.name), 'the weak family');
  has('ssl', WEAK_FAMILIES.map((f) => f.cvss), 'the weak family vector');
  has('ssl', PQ_GROUPS.map((g) => g.name), 'the post-quantum group');
  has('dns', DEFAULT_SUBDOMAINS, 'the wordlist name');
  has('network', [DISCOVERY_PORTS], 'the discovery ports');
  for (const name of ['port', 'network']) {
    has(name, Object.values(VECTORS), 'the vector');
    const doc = readme(name);
    for (const { phrase, av } of Object.values(REACH)) {
      if (!doc.includes(phrase)) missing.push(`${name}: the reach "${phrase}"`);
      if (!doc.includes(`\`AV:${av}\``)) missing.push(`${name}: \`AV:${av}\``);
    }
  }
  has('port', [DEFAULT_LOGIN_USERS.join(',')], 'the default login_users');
  t.deepEqual(missing, []);
});

test('every relative link of the scanner READMEs points at an existing file', (t) => {
  const broken: string[] = [];
  for (const name of ['.', ...scanners.map((s) => s.name)]) {
    const file = join(SCANNERS, name, 'README.md');
    const text = readFileSync(file, 'utf8').replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
      if (!existsSync(resolve(dirname(file), target!.split('#')[0]!))) broken.push(`${relative(ROOT, file)} → ${target}`);
    }
  }
  t.deepEqual(broken, []);
});
