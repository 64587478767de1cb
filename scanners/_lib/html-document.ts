import { createRequire } from 'node:module';
import type * as Cheerio from 'cheerio';

// cheerio costs about 0.4 s of CPU to load. Every process that loads the built-in scanners
// (for their manifests) would pay it, though only the check threads that parse HTML use it:
// it is required on first use instead.
const requireLazily = createRequire(import.meta.url);
let cheerio: typeof Cheerio | undefined;

/** Parses an HTML document for querying (cheerio, loaded on first use). */
export function loadHtml(body: string): Cheerio.CheerioAPI {
  cheerio ??= requireLazily('cheerio') as typeof Cheerio;
  return cheerio.load(body);
}
