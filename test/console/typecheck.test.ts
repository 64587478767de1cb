import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../_helpers/harness/spawn-service.ts';

// The console ships as plain ES modules (no build step); their JSDoc types are checked here
// with the browser's lib (console/tsconfig.json), like the server code is by `npm test`'s tsc.

test('the console modules type-check (// @ts-check, JSDoc, DOM lib)', async (t) => {
  t.timeout(120_000);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', join(ROOT, 'console', 'tsconfig.json')], { cwd: ROOT }).then(
    () => '',
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
  t.is(result, '');
});

test('every console module opts into checking', async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const files = readdirSync(join(ROOT, 'console'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  t.true(files.length > 5);
  for (const file of files) t.true(readFileSync(join(ROOT, 'console', file), 'utf8').startsWith('// @ts-check'), file);
});

test("the console's event kinds are the API's", async (t) => {
  const { STORED_EVENT_KINDS, WEBHOOK_EVENT_KINDS } = await import('../../core/domain/event-kinds.ts');
  const { pathToFileURL } = await import('node:url');
  // Loaded by URL: the console's JS is checked by its own tsconfig, not the server's.
  const consoleKinds = await import(pathToFileURL(join(ROOT, 'console', 'lib', 'event-kinds.js')).href);
  t.deepEqual(consoleKinds.EVENT_KINDS, [...STORED_EVENT_KINDS]);
  t.deepEqual(consoleKinds.WEBHOOK_EVENT_KINDS, [...WEBHOOK_EVENT_KINDS]);
});
