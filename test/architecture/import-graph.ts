import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** One import edge: the importing file and what it names, resolved to a repo path when relative. */
export interface ImportEdge {
  from: string;
  /** Repo-relative path for relative specifiers; the bare specifier (`knex`, `node:fs`) otherwise. */
  to: string;
  line: number;
  typeOnly: boolean;
}

// Static imports and re-exports (possibly spanning lines) and dynamic imports of a literal.
const STATIC = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every `.ts`/`.mjs` file below these repo folders, repo-relative, skipping node_modules. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      if (name === 'node_modules') continue;
      const rel = join(dir, name);
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(rel);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The imports of one file. */
export function importsOf(root: string, file: string): ImportEdge[] {
  return importsOfText(file, readFileSync(join(root, file), 'utf8'));
}

/** The imports written in `text`, as the file `file` would have them (a planted file in a rule's test). */
export function importsOfText(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const add = (spec: string, index: number, typeOnly: boolean): void => {
    const to = spec.startsWith('.') ? normalize(join(dirname(file), spec)) : spec;
    edges.push({ from: file, to, line: lineOf(text, index), typeOnly });
  };
  for (const m of text.matchAll(STATIC)) add(m[3]!, m.index!, Boolean(m[2]));
  for (const m of text.matchAll(DYNAMIC)) add(m[1]!, m.index!, false);
  return edges;
}

/** Is this path inside one of these folders (or one of these files)? */
export function under(path: string, ...prefixes: string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/** The folder a file counts under for the cycle rule: `core/<feature>`, `plugins/<area>`, `scanners/<name>`… */
export function unitOf(path: string): string {
  const parts = relative('.', path).split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Cycles in a directed graph (Tarjan's strongly connected components of size > 1). */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
