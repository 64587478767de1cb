/** What every secret form is replaced with. */
export const MASK = '********';

/** Levels of nesting the scrubber walks; a deeper subtree is replaced whole by {@link TOO_DEEP}. */
export const MAX_SCRUB_DEPTH = 64;
/** What replaces a subtree nested deeper than {@link MAX_SCRUB_DEPTH}: it is never passed through unread. */
export const TOO_DEEP = `[removed: nested deeper than ${MAX_SCRUB_DEPTH} levels]`;

/** The shortest base64 run that still identifies a secret embedded at any byte offset. */
const MIN_CORE = 8;

/**
 * The base64 characters that depend only on the secret's bytes when it sits `offset`
 * bytes into a longer encoded buffer: the complete 3-byte groups, without the partial
 * ones at either end (those mix in the neighbours' bits). Matching these finds a secret
 * that was base64-encoded together with other text, e.g. `user:secret` in Basic auth.
 */
function base64Cores(value: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(offset), value]);
    const text = padded.toString('base64');
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor(padded.length / 3) * 4;
    const core = text.slice(start, end);
    if (core.length >= MIN_CORE) cores.push(core);
  }
  return cores;
}

/** Every written form of one secret value the scrubber looks for. */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set<string>([value]);
  forms.add(JSON.stringify(value).slice(1, -1));
  const b64 = bytes.toString('base64');
  forms.add(b64);
  forms.add(b64.replace(/=+$/, ''));
  for (const core of base64Cores(bytes)) {
    forms.add(core);
    forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  forms.add(bytes.toString('base64url'));
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  const url = encodeURIComponent(value);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  forms.add(url.replace(/%20/g, '+'));
  // Form encoding also escapes what encodeURIComponent leaves alone.
  forms.add(new URLSearchParams({ v: value }).toString().slice(2));
  return [...forms].filter((f) => f.length >= 4);
}

/**
 * Removes secret values from everything a run writes (output, error, logs, plan) before
 * it is stored or sent: the raw value and its JSON-escaped, base64 (any alignment,
 * standard and URL-safe), hex and URL-encoded forms, longest first so a form inside
 * another is not left half-masked. Values follow the run, not parameter names: a secret
 * copied into an innocently named field is masked too.
 */
export class SecretScrubber {
  #forms: string[] = [];

  constructor(values: Iterable<string> = []) {
    this.add(values);
  }

  /** Adds values learnt during the run (an executor read a credential by name). */
  add(values: Iterable<string>): void {
    const all = new Set<string>(this.#forms);
    for (const v of values) if (v) for (const f of secretForms(v)) all.add(f);
    this.#forms = [...all].sort((a, b) => b.length - a.length);
  }

  get empty(): boolean {
    return this.#forms.length === 0;
  }

  text(input: string): string {
    let out = input;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }

  /**
   * A deep copy of a JSON value with every string (and key) scrubbed; a number whose
   * decimal text holds a secret (a PIN, an all-digit key) becomes the mask string, and a
   * subtree nested deeper than {@link MAX_SCRUB_DEPTH} levels is replaced by {@link TOO_DEEP}.
   */
  value<T>(input: T): T {
    if (this.empty) return input;
    return this.#walk(input, 0) as T;
  }

  #walk(v: unknown, depth: number): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' || typeof v === 'bigint') return this.text(String(v)) === String(v) ? v : MASK;
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_SCRUB_DEPTH) return TOO_DEEP;
    if (Array.isArray(v)) return v.map((x) => this.#walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.#walk(x, depth + 1);
    return out;
  }
}
