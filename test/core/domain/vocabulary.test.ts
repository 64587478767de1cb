import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ASSET_TYPES } from '../../../core/domain/asset-type.ts';
import { SEVERITIES } from '../../../core/domain/severity.ts';
import { sourceFiles } from '../../architecture/import-graph.ts';
import { ROOT } from '../../_helpers/harness/spawn-service.ts';

// One list of each vocabulary: severities and asset types are written in core/domain/ and
// derived everywhere else (joi schemas, the plugin manifest schema, importers). The console
// cannot import TypeScript, so it holds the one checked copy, console/lib/vocabulary.js.

const VOCABULARIES: Record<string, readonly string[]> = { severity: SEVERITIES, 'asset type': ASSET_TYPES };
const HOMES = ['core/domain', 'console/lib/vocabulary.js'];
const SHIPPED = ['core', 'plugins', 'scanners', 'executors', 'forwarders', 'console', 'cli', 'agent', 'config'];

/** Three words of a list in a row, as a literal list writes them (any quotes, any wrapping). */
function pattern(words: readonly string[]): RegExp {
  const runs: string[] = [];
  for (let i = 0; i + 3 <= words.length; i++) runs.push(words.slice(i, i + 3).map((w) => `['"\`]${w}['"\`]`).join('\\s*,\\s*'));
  return new RegExp(runs.join('|'), 'g');
}

/** Every place outside the homes that writes one of the lists out again, as `path:line (vocabulary)`. */
export function vocabularyCopies(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (HOMES.some((h) => path === h || path.startsWith(`${h}/`))) continue;
    for (const [name, words] of Object.entries(VOCABULARIES)) {
      for (const m of text.matchAll(pattern(words))) found.push(`${path}:${text.slice(0, m.index).split('\n').length} (${name}): ${m[0].replace(/\s+/g, ' ')}`);
    }
  }
  return found;
}

test('no shipped file writes the severity or asset type list again', (t) => {
  const files = sourceFiles(ROOT, SHIPPED).map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
  t.true(files.length > 300);
  t.deepEqual(vocabularyCopies(files), [], 'import the list from core/domain/ (the console: console/lib/vocabulary.js)');
});

test('the rule finds a planted copy, in any quotes and wrapping, and ignores partial lists', (t) => {
  const planted = [
    { path: 'plugins/x/x-schemas.ts', text: "const S = ['critical', 'high', 'medium', 'low', 'info'];" },
    { path: 'console/pages/x.js', text: 'const T = [\n  "domain",\n  "ip",\n  "url",\n];\nconst U = [`ip`, `url`, `network`];' },
    { path: 'core/scans/quick.ts', text: "export const QUICK = ['critical', 'high'];" },
    { path: 'core/domain/severity.ts', text: "export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;" },
  ];
  t.deepEqual(
    vocabularyCopies(planted).map((f) => f.split(' ')[0]),
    ['plugins/x/x-schemas.ts:1', 'console/pages/x.js:2', 'console/pages/x.js:6'],
  );
});

test("the console's copy is core/domain's lists", async (t) => {
  const consoleWords = (await import(pathToFileURL(join(ROOT, 'console', 'lib', 'vocabulary.js')).href)) as { SEVERITIES: string[]; ASSET_TYPES: string[] };
  t.deepEqual(consoleWords.SEVERITIES, [...SEVERITIES]);
  t.deepEqual(consoleWords.ASSET_TYPES, [...ASSET_TYPES]);
});
