// `node --import=./test/_helpers/harness/typescript-loader.mjs`: lets this process import the
// TypeScript sources (typescript-hooks.mjs says how, and why not tsx). Stack traces name the
// TypeScript lines through the source maps the transform writes inline.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register(new URL('./typescript-hooks.mjs', import.meta.url));
