// Lets this thread import TypeScript through the main thread's transpiler
// (typescript-thread-hooks.mjs). Idempotent; plain JavaScript because it runs before
// any TypeScript can be loaded.
import { register } from 'node:module';

let registered = false;

export function useTypeScriptBridge() {
  if (registered) return;
  registered = true;
  process.setSourceMapsEnabled(true);
  register(new URL('./typescript-thread-hooks.mjs', import.meta.url));
}
