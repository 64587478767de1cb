// Rules that keep the docs from drifting away from the tree, as functions of a set of
// documents and a view of the repository, so each can be run on the repository and on
// planted documents (doc-drift.test.ts).
import { posix } from 'node:path';

export interface Doc {
  /** Repo path: `docs/plugins.md`, or a source file whose comments are read. */
  path: string;
  text: string;
}

export interface RepoView {
  /** A repo path (file or folder) that exists. */
  exists(path: string): boolean;
  /** Is there a file of this name (`run-check.ts`) anywhere in the repository? */
  hasBasename(name: string): boolean;
  /** Is there a file whose path ends with this (`web_app/crawler.ts`)? */
  hasSuffix(path: string): boolean;
  /** Does a package path (`semver/functions/valid.js`) resolve in node_modules? */
  inPackage(path: string): boolean;
}

/** Folders at the top of the repository: a path starting with one is read from the root. */
export const TOP_FOLDERS = ['.ci', 'agent', 'bench', 'cli', 'config', 'console', 'core', 'docs', 'executors', 'forwarders', 'plugins', 'resources', 'scanners', 'test'];
const FILE = /\.(ts|mts|mjs|cjs|js|md|json|sql|ya?ml|sh|css|svg|html)$/;
/** A bare file name of this repository's own kinds (`run-check.ts`, `plugins.md`): other bare names (`ipaddr.js`, `backup.sql`) name things outside it. */
const OWN_FILE = /^[\w@][\w@.+-]*\.(ts|mts|mjs|md)$/;
/** Such a file named in prose, with or without its folders. */
const PROSE_FILE = /(?<![\w/.@-])(?:\.{1,2}\/)?[\w@][\w@.-]*(?:\/[\w@.-]+)*\.(?:ts|mts|mjs|md)(?![\w/-])/g;

/** The text outside fenced code blocks. */
export function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
}

/**
 * The comments of a source file (line and block), with their line numbers. A small lexer:
 * string and template literals are skipped (a string ends at its line's end at the
 * latest, so a quote inside a regular expression costs at most that line), and a
 * backslash in code escapes the next character (`\/\/` in a regular expression).
 */
export function commentsOf(source: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let line = 1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n') line++;
    else if (c === '\\') {
      if (source[++i] === '\n') line++;
    } else if (c === '/' && (source[i + 1] === '/' || source[i + 1] === '*')) {
      const end = source[i + 1] === '/' ? source.indexOf('\n', i) : source.indexOf('*/', i + 2) + 2;
      const stop = end <= 1 || end === -1 ? source.length : end;
      const text = source.slice(i, stop);
      out.push({ line, text });
      line += text.split('\n').length - 1;
      i = stop - 1;
    } else if (c === "'" || c === '"' || c === '`') {
      for (i++; i < source.length && source[i] !== c; i++) {
        if (source[i] === '\\') {
          if (source[++i] === '\n') line++;
        } else if (source[i] === '\n') {
          if (c !== '`') break;
          line++;
        }
      }
      if (source[i] === '\n') line++;
    }
  }
  return out;
}

/** Inline code spans (`…`) with the line they are on; markdown fences are read too (DESIGN.md's map lives in them). */
function spans(doc: Doc): Array<{ line: number; code: string }> {
  const out: Array<{ line: number; code: string }> = [];
  const read = (text: string, firstLine: number, fenced: boolean) => {
    if (fenced) {
      // In a fence every whitespace-separated word may be a path.
      text.split('\n').forEach((l, i) => {
        for (const w of l.split(/[\s,;()]+/)) if (FILE.test(w) || (w.includes('/') && w.endsWith('/'))) out.push({ line: firstLine + i, code: w });
      });
      return;
    }
    for (const m of text.matchAll(/`([^`\n]+)`/g)) out.push({ line: firstLine + text.slice(0, m.index).split('\n').length - 1, code: m[1]! });
    // A file of ours cited in prose ("formats.md §3.1", "see scan-runner.ts") is a path claim too.
    const prose = text.replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length)).replace(/\]\([^)]*\)|<?https?:\/\/[^\s>)]+>?/g, (m) => ' '.repeat(m.length));
    for (const m of prose.matchAll(PROSE_FILE)) out.push({ line: firstLine + prose.slice(0, m.index).split('\n').length - 1, code: m[0] });
  };
  if (doc.path.endsWith('.md')) {
    let at = 0;
    for (const m of doc.text.matchAll(/^(```|~~~)[^\n]*\n([\s\S]*?)^\1/gm)) {
      read(doc.text.slice(at, m.index), doc.text.slice(0, at).split('\n').length, false);
      read(m[2]!, doc.text.slice(0, m.index).split('\n').length + 1, true);
      at = m.index! + m[0].length;
    }
    read(doc.text.slice(at), doc.text.slice(0, at).split('\n').length, false);
  } else {
    for (const c of commentsOf(doc.text)) read(c.text, c.line, false);
  }
  return out;
}

/**
 * Why a code span naming a path does not resolve, or null when it does or names no path.
 * A path from a top folder is read from the root; `./` and `../` from the document's
 * folder; a bare file name of ours must exist somewhere; `web_app/crawler.ts` must end
 * some file's path.
 * Placeholders (`<name>`, `*`), URLs, routes (`/api/…`), commands and package names are no paths.
 */
export function pathProblem(doc: Doc, raw: string, repo: RepoView): string | null {
  const code = raw.trim().replace(/[.,:;)]+$/, '').replace(/^[(]/, '').replace(/#.*$/, '').replace(/:\d+$/, '');
  if (!code || /[\s<>*{}$=?|'"`\\…]/.test(code) || /^[a-z][a-z0-9+.-]*:/i.test(code) || code.startsWith('/') || code.startsWith('@') || code.startsWith('~')) return null;
  const top = code.split('/')[0]!;
  if (code.startsWith('./') || code.startsWith('../')) {
    // `./data` in a config page is where the process writes: only files of ours are checked.
    if (!FILE.test(code) && !code.endsWith('/')) return null;
    const resolved = posix.normalize(posix.join(posix.dirname(doc.path), code));
    if (resolved.startsWith('..')) return 'points outside the repository';
    return repo.exists(resolved.replace(/\/$/, '')) ? null : `${resolved} does not exist`;
  }
  if (code.includes('/') && TOP_FOLDERS.includes(top)) return repo.exists(code.replace(/\/$/, '')) ? null : 'no such file or folder';
  if (!code.includes('/')) return !OWN_FILE.test(code) || repo.hasBasename(code) ? null : 'no file of this name in the repository';
  if (!FILE.test(code)) return null;
  return repo.hasSuffix(code) || repo.inPackage(code) ? null : 'no file with this path in the repository';
}

/** Every code-span path of these documents that does not resolve, as `path:line \`code\` why`. */
export function unresolvedPaths(docs: readonly Doc[], repo: RepoView): string[] {
  const out: string[] = [];
  for (const doc of docs) {
    for (const s of spans(doc)) {
      const why = pathProblem(doc, s.code, repo);
      if (why) out.push(`${doc.path}:${s.line} \`${s.code}\` ${why}`);
    }
  }
  return out;
}

/** The markdown files a document links to (relative links, anchors dropped), as repo paths. */
export function linkedPages(doc: Doc): string[] {
  const text = withoutFences(doc.text).replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const path = decodeURIComponent(target!.split('#')[0]!);
    if (!path || /^[a-z][a-z0-9+.-]*:/i.test(path) || !path.endsWith('.md')) continue;
    out.push(posix.normalize(posix.join(posix.dirname(doc.path), path)));
  }
  return out;
}

/**
 * Pages of docs/ no reader can reach: not linked from README.md or DESIGN.md, nor from a
 * page that is (following links, so two orphans citing each other stay orphans). A link
 * to the folder does not count: a page is found by its own link.
 */
export function unreachablePages(docs: readonly Doc[]): string[] {
  const byPath = new Map(docs.map((d) => [d.path, d]));
  const seen = new Set<string>();
  const queue = ['README.md', 'DESIGN.md'].filter((p) => byPath.has(p));
  while (queue.length) {
    const at = queue.shift()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const next of linkedPages(byPath.get(at)!)) if (byPath.has(next) && !seen.has(next)) queue.push(next);
  }
  return docs.map((d) => d.path).filter((p) => p.startsWith('docs/') && p.endsWith('.md') && !seen.has(p));
}
