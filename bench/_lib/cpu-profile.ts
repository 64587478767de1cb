/**
 * Reading a V8 CPU profile (the `.cpuprofile` format `node --cpu-prof` and the
 * inspector's Profiler.stop produce) into the two tables bench reports print: the
 * functions with the most self time, and self time summed by where the code lives
 * (a package, Rampart's own folders, Node's internals, GC).
 */

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }>;
  samples?: number[];
  startTime: number;
  endTime: number;
}

export interface Frame {
  name: string;
  where: string;
  area: string;
  /** Share of the busy samples (idle excluded), 0..1. */
  share: number;
}

/** `node_modules/<pkg>/…` → the package; Rampart's files → their top folders; Node's own → `node internals`. */
export function areaOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return '(program: native, not attributed)';
    return functionName || '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/(core\/[^/]+|plugins\/[^/]+|config|bench)\//.exec(url);
  return own ? own[1]! : 'other';
}

function shortWhere(url: string, line: number): string {
  if (!url) return '';
  const trimmed = url.replace(/^file:\/\//, '').replace(/^.*?node_modules\//, '').replace(/^.*?\/((?:core|plugins|bench|config)\/)/, '$1');
  return `${trimmed}:${line + 1}`;
}

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** Self time per function (idle excluded), largest first, and per area. */
export function summarise(profile: CpuProfile): { frames: Frame[]; areas: Array<{ area: string; share: number }>; busySamples: number; seconds: number } {
  const hits = new Map<number, number>();
  if (profile.samples?.length) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Native functions (a driver's C++ binding, a builtin) have no script: they count for
  // the nearest caller that has one, e.g. better-sqlite3's Statement for whoever prepared it.
  const caller = (id: number) => {
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
      const frame = byId.get(p)!.callFrame;
      if (frame.url) return frame;
    }
    return null;
  };
  const byFrame = new Map<string, { name: string; where: string; area: string; hits: number }>();
  let busy = 0;
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (!count || functionName === '(idle)') continue;
    busy += count;
    const name = functionName || '(anonymous)';
    const from = !url && !SPECIAL.has(functionName) ? caller(node.id) : null;
    const key = `${name}@${url}:${lineNumber}@${from ? `${from.url}:${from.lineNumber}` : ''}`;
    const where = from ? `native, from ${shortWhere(from.url, from.lineNumber)}` : shortWhere(url, lineNumber);
    const area = from ? areaOf(from.url, from.functionName) : areaOf(url, functionName);
    const entry = byFrame.get(key) ?? { name, where, area, hits: 0 };
    entry.hits += count;
    byFrame.set(key, entry);
  }
  const frames = [...byFrame.values()].sort((a, b) => b.hits - a.hits).map((f) => ({ name: f.name, where: f.where, area: f.area, share: f.hits / busy }));
  const areaHits = new Map<string, number>();
  for (const f of byFrame.values()) areaHits.set(f.area, (areaHits.get(f.area) ?? 0) + f.hits);
  const areas = [...areaHits].sort((a, b) => b[1] - a[1]).map(([area, h]) => ({ area, share: h / busy }));
  return { frames, areas, busySamples: busy, seconds: (profile.endTime - profile.startTime) / 1e6 };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** Markdown lines: the top `n` frames by self time and the areas. */
export function profileTables(profile: CpuProfile, n = 15): string[] {
  const { frames, areas, busySamples, seconds } = summarise(profile);
  return [
    `${busySamples} busy samples over ${seconds.toFixed(1)} s (idle excluded); self time.`,
    '',
    '| # | function | where | self |',
    '|---:|---|---|---:|',
    ...frames.slice(0, n).map((f, i) => `| ${i + 1} | \`${f.name.replace(/\|/g, '\\|')}\` | ${f.where.replace(/\|/g, '\\|')} | ${pct(f.share)} |`),
    '',
    '| area | self |',
    '|---|---:|',
    ...areas.slice(0, 14).map((a) => `| ${a.area} | ${pct(a.share)} |`),
  ];
}
