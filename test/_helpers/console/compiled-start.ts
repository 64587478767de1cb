import { join } from 'node:path';
import { DIST, ensureBuilt } from '../../../core/runtime/dist-build.mjs';

/**
 * dist/, compiled from the checkout's sources: what `npm start` runs. Built at most once per
 * run of the suite: the build is skipped when dist/ already matches the sources (a digest),
 * and test processes that ask at the same time wait for one build (a lock), so every file
 * that starts the compiled service shares it.
 */
let built: Promise<string> | undefined;
export function compiledDist(): Promise<string> {
  built ??= ensureBuilt({ log: () => undefined }).then((outcome) => {
    if (outcome === 'no-compiler') throw new Error('TypeScript is not installed, so dist/ cannot be built for the compiled start');
    return DIST;
  });
  return built;
}

/** The compiled JavaScript of a source file (`plugins/console/console-assets.ts` → dist/…/console-assets.js). */
export async function compiledModule(source: string): Promise<string> {
  return join(await compiledDist(), source.replace(/\.ts$/, '.js'));
}
