import { ImportFileError } from './import-file-error.ts';
import type { ReaderLimits, ReaderOutcome, ReadResult, TextSource } from './import-result.ts';
import { jsonPath, type PathPart } from './json-path.ts';
import { JsonWalker } from './json-walker.ts';
import { sarifResult } from './sarif-result.ts';
import { sarifRun, type SarifRun } from './sarif-run.ts';
import { sarifDocumentProblems, sarifResultProblems } from './sarif-schema.ts';

const isResultPath = (path: readonly PathPart[]): boolean =>
  path.length === 4 && path[0] === 'runs' && typeof path[1] === 'number' && path[2] === 'results' && typeof path[3] === 'number';

function runAt(doc: unknown, index: number): unknown {
  const runs = (doc as { runs?: unknown } | null)?.runs;
  return Array.isArray(runs) ? runs[index] : undefined;
}

/**
 * SARIF 2.1.0, checked against the official schema (sarif-schema.ts) in one streamed pass:
 * every result as it goes by, the rest of the document at the end. A result is turned into
 * a finding with its run's tool and rules, which tools write before the results; a file
 * that puts them after is read a second time with the whole document (ReaderOutcome).
 */
export async function* readSarif(text: TextSource, limits: ReaderLimits, context?: unknown): AsyncGenerator<ReadResult, ReaderOutcome> {
  const walker = new JsonWalker(isResultPath, limits);
  const runs = new Map<number, SarifRun>();
  let complete = true;
  for await (const item of walker.items(text)) {
    const problem = sarifResultProblems(item.value, item.path)[0];
    if (problem) throw new ImportFileError(`does not follow the SARIF 2.1.0 schema: ${problem.message}`, problem.path);
    const index = item.path[1] as number;
    let run = runs.get(index);
    if (!run) {
      const raw = runAt(context ?? walker.skeleton, index) as { tool?: unknown } | undefined;
      if (!raw?.tool) {
        complete = false;
        continue;
      }
      run = sarifRun(raw);
      runs.set(index, run);
    }
    yield sarifResult(item.value as Record<string, unknown>, jsonPath(item.path), run);
  }
  const problem = sarifDocumentProblems(walker.skeleton)[0];
  if (problem) throw new ImportFileError(`does not follow the SARIF 2.1.0 schema: ${problem.message}`, problem.path);
  return { context: walker.skeleton, complete: complete || context !== undefined };
}
