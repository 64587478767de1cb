import test from 'ava';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** README.md, DESIGN.md and every markdown file under docs/. */
function documents(): string[] {
  const found = ['README.md', 'DESIGN.md'].map((f) => join(ROOT, f));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return found;
}

/** The text outside fenced code blocks. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
}

/** The text outside code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of withoutFences(markdown).replace(/`/g, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

interface Link {
  from: string;
  target: string;
}

function relativeLinks(file: string, root = ROOT): Link[] {
  const text = prose(readFileSync(file, 'utf8'));
  const links: Link[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
    links.push({ from: relative(root, file), target: target! });
  }
  return links;
}

/** Why a link does not resolve, or null when it does. */
function problem(link: Link, root = ROOT): string | null {
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const target = pathPart ? resolve(root, dirname(link.from), decodeURIComponent(pathPart)) : resolve(root, link.from);
  if (!target.startsWith(root)) return 'points outside the repository';
  if (!existsSync(target)) return 'no such file';
  if (anchor === undefined || anchor === '') return null;
  if (statSync(target).isDirectory() || !target.endsWith('.md')) return 'anchor on a file that is not markdown';
  return anchors(readFileSync(target, 'utf8')).has(anchor) ? null : `no heading with anchor #${anchor}`;
}

test('every relative link in README.md, DESIGN.md and docs/ points at an existing file and heading', (t) => {
  const links = documents().flatMap((f) => relativeLinks(f));
  t.true(links.length > 50, `expected the docs to link to each other, found ${links.length} links`);
  const broken = links.map((l) => ({ ...l, why: problem(l) })).filter((l) => l.why !== null);
  t.deepEqual(
    broken.map((l) => `${l.from}: (${l.target}) ${l.why}`),
    [],
  );
});

test('the anchor rule matches GitHub for headings with code and punctuation', (t) => {
  const doc = '# Rate limits\n## Streaming reads (`core/db/query-stream.ts`)\n## Assets, verification, findings\n## Rate limits\n```\n# not a heading\n```\n';
  t.deepEqual([...anchors(doc)], ['rate-limits', 'streaming-reads-coredbquery-streamts', 'assets-verification-findings', 'rate-limits-1']);
});

test('the link rule reports planted broken links: a missing file, a missing heading, a way out of the tree', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rampart-links-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'a.md'), '# Title\n## Real heading\n');
  writeFileSync(join(root, 'README.md'), '[ok](docs/a.md#real-heading) [gone](docs/gone.md) [anchor](docs/a.md#no-such) [out](../x.md) [web](https://x.test/y.md) `[code](docs/gone.md)`\n');
  const found = relativeLinks(join(root, 'README.md'), root).map((l) => `${l.target}: ${problem(l, root)}`);
  t.deepEqual(found, ['docs/a.md#real-heading: null', 'docs/gone.md: no such file', 'docs/a.md#no-such: no heading with anchor #no-such', '../x.md: points outside the repository']);
});
