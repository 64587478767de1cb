import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../_helpers/harness/spawn-service.ts';

// Issues 24 and 26: the README stays a front page (the pitch, the two set-up commands, a
// quick start that runs, where to read on) under 12 KB, and what exists is findable from it.

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('the README is at most 12,000 bytes', (t) => {
  t.true(statSync(join(ROOT, 'README.md')).size <= 12_000, `${statSync(join(ROOT, 'README.md')).size} bytes`);
});

test('its set-up section gives exactly the two commands', (t) => {
  const setUp = README.slice(README.indexOf('## Set up'), README.indexOf('\n## ', README.indexOf('## Set up') + 1));
  t.deepEqual([...setUp.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim()), ['npm ci && npm start', 'npm ci && npm test']);
});

test('"Where to read on" links every page of docs/', (t) => {
  const readOn = README.slice(README.indexOf('## Where to read on'));
  const pages = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? (e.name === 'images' || e.name === 'bench' ? [] : pages(`${dir}/${e.name}`)) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : []));
  const missing = pages('docs').filter((page) => !readOn.includes(`](${page})`));
  t.deepEqual(missing, []);
});

test('the CLI, the importers, the exports and /metrics (and how to turn it on) are mentioned', (t) => {
  for (const needle of ['npx rampart', 'docs/cli.md', 'docs/importers.md', 'POST /api/findings/export', 'GET /metrics', 'RAMPART__metrics__token']) {
    t.true(README.includes(needle), needle);
  }
});
