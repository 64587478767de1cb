/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), enough to
 * check /metrics: every sample line must parse, every sample must belong to a family
 * declared by `# TYPE`, and label values are unescaped. Throws on anything else, so a
 * malformed exposition fails the test that reads it.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created', ''];

function parseValue(text: string): number {
  // Prometheus reads these as Go's ParseFloat does: any letter case (prom-client writes "Nan").
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

export function parsePrometheusText(body: string): Exposition {
  const out: Exposition = { types: new Map(), help: new Map(), samples: [] };
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'TYPE' ? out.types : out.help).set(meta[2]!, meta[3]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1]!;
    const family = SUFFIXES.map((s) => (s && name.endsWith(s) ? name.slice(0, -s.length) : s ? null : name)).find((f) => f !== null && out.types.has(f));
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    out.samples.push({ name, labels: m[2] ? parseLabels(m[2], line) : {}, value: parseValue(m[3]!) });
  }
  return out;
}

/** The value of the one sample with this name whose labels include `labels` (undefined if none). */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
