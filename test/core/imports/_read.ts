import { readFileSync } from 'node:fs';
import type { ReaderOutcome, ReadResult, ResultReader } from '../../../core/imports/import-result.ts';

export const fixtureText = (name: string) => readFileSync(new URL(`../../fixtures/imports/${name}`, import.meta.url), 'utf8');

const LIMITS = { maxItemChars: 1 << 24, maxSkeletonChars: 1 << 26 };

/** Runs a reader to its end over a text, as the import service does (again with the context when asked). */
export async function readAll(reader: ResultReader, text: string, chunk = 4096): Promise<{ results: ReadResult[]; outcome: ReaderOutcome; passes: number }> {
  const source = () => (async function* () {
    for (let i = 0; i < text.length; i += chunk) yield text.slice(i, i + chunk);
  })();
  let context: unknown;
  for (let passes = 1; ; passes++) {
    const results: ReadResult[] = [];
    const it = reader(source, LIMITS, context);
    for (;;) {
      const next = await it.next();
      if (next.done) {
        if (next.value.complete) return { results, outcome: next.value, passes };
        context = next.value.context;
        break;
      }
      results.push(next.value);
    }
  }
}
