// `npm start`, `npm run migrate`, `npm run agent`: runs an entry point from dist/, the
// compiled JavaScript, in this process (so the service manager's signals reach it
// directly). dist/ is rebuilt first if the sources changed since it was built; an
// out-of-date dist/ never runs.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ensureBuilt } from './dist-build.mjs';

/** The entry points a launch may name, as paths without extension. */
const ENTRIES = ['core/main', 'core/db/migrate-cli', 'agent/main'];

const entry = process.argv[2];
if (!ENTRIES.includes(entry)) {
  console.error(`usage: node core/runtime/launch.mjs <${ENTRIES.join('|')}> [arguments…]`);
  process.exit(2);
}
let outcome;
try {
  outcome = await ensureBuilt();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
if (outcome === 'no-compiler') {
  console.error('dist/ is missing or older than the sources, and TypeScript (a dev dependency) is not installed to rebuild it. '
    + 'Run `npm ci` (with dev dependencies), or `npm run build` where TypeScript is installed and deploy the result.');
  process.exit(1);
}
// Stack traces name the TypeScript sources (tsc writes source maps beside the JavaScript).
process.setSourceMapsEnabled(true);
const file = join(DIST, `${entry}.js`);
// The entry sees its own arguments, as if it had been started directly.
process.argv.splice(1, 2, file);
await import(pathToFileURL(file).href);
