// `npm run build` (and `prepare`, which npm runs at `npm ci`): compiles the sources into
// dist/ when they changed since the last build. `--if-possible` (prepare) only notes a
// missing TypeScript compiler (an install without dev dependencies) instead of failing
// the install; `npm start` then refuses to run an out-of-date dist/.
import { ensureBuilt } from './dist-build.mjs';

const ifPossible = process.argv.includes('--if-possible');
try {
  const outcome = await ensureBuilt();
  if (outcome === 'fresh') console.error('dist/ is up to date with the sources.');
  if (outcome === 'no-compiler') {
    console.error('TypeScript is not installed (dev dependencies omitted), so dist/ was not built.');
    if (!ifPossible) process.exitCode = 1;
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
}
