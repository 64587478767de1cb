// The planted secrets of the platform canary and the search for them. Every canary is
// distinctive (a seeded random core no real payload contains) and is searched in every
// encoding a careless code path could write it in. A secret that must be visible exactly
// once (a token shown at creation) names that one response; it is excluded there only, and
// the check also proves it really was there.
import { seededRandom } from '../../_helpers/harness/seeded-random.ts';

/** The seed of this run: RAMPART_CANARY_SEED, or a fresh one (printed by the test). */
export function canarySeed(): number {
  const fixed = process.env.RAMPART_CANARY_SEED;
  return fixed ? Number(fixed) : Math.floor(Math.random() * 2 ** 31);
}

// Characters that make raw, URL-encoded, base64 and JSON forms all differ ('/', '+', '=', '?', '!').
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789/+=?!';

/** Every form a leak could take: raw, base64, base64url, hex, URL-encoded, JSON-escaped, and base64 cores at the other two alignments. */
export function formsOf(secret: string): string[] {
  const b = Buffer.from(secret);
  const out = [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), b.toString('hex').toUpperCase(), encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  // base64 without its padding, so a value embedded in a longer encoded string is still found
  out.push(b.toString('base64').replace(/=+$/, ''));
  for (const pre of ['a', 'ab']) {
    const shifted = Buffer.from(pre + secret).toString('base64');
    out.push(shifted.slice(4, Math.min(shifted.length - 4, 40)));
    out.push(Buffer.from(pre + secret).toString('base64url').slice(4, Math.min(shifted.length - 4, 40)));
  }
  return [...new Set(out.filter((f) => f.length >= 12))];
}

export interface Canary {
  name: string;
  value: string;
  forms: string[];
  /** The one response allowed to show it (a token shown at creation), set when it arrives. */
  shownOnceIn?: unknown;
}

export class Canaries {
  readonly #random: () => number;
  readonly list: Canary[] = [];

  constructor(readonly seed: number) {
    this.#random = seededRandom(seed);
  }

  /** A fresh distinctive value: `prefix` + 20 seeded characters of a mixed alphabet. */
  make(name: string, prefix = 'Cnry'): string {
    let core = '';
    for (let i = 0; i < 20; i++) core += ALPHABET[Math.floor(this.#random() * ALPHABET.length)];
    return this.add(name, `${prefix}-${name.replace(/[^a-z0-9]/gi, '').slice(0, 10)}-${core}`);
  }

  /** Registers a value the platform made (a token, a generated secret) or one with its own shape. */
  add(name: string, value: string, extraForms: string[] = []): string {
    this.list.push({ name, value, forms: [...new Set([...formsOf(value), ...extraForms])] });
    return value;
  }

  /** Marks the single response a secret may appear in (shown once at creation). */
  shownOnce(value: string, response: unknown): void {
    const c = this.list.find((x) => x.value === value);
    if (!c) throw new Error('unknown canary');
    if (c.shownOnceIn) throw new Error(`${c.name} was already shown once`);
    c.shownOnceIn = response;
  }

  /** `canary-name: form` for every form of every canary found in the text. */
  hitsIn(text: string, response?: unknown): string[] {
    const hits: string[] = [];
    for (const c of this.list) {
      if (response !== undefined && c.shownOnceIn === response) continue;
      for (const f of c.forms) if (text.includes(f)) hits.push(`${c.name}: ${f}`);
    }
    return hits;
  }
}
