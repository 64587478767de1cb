import test from 'ava';
import * as kit from '../../../core/author-kit/index.ts';
import { formatEvent, sampleEvent } from '../../../core/plugins/format-event.ts';
import { createSandbox, mockExecutorContext, SandboxError } from '../../../core/plugins/mock-executor-context.ts';
import { runCheck } from '../../../core/plugins/run-check.ts';
import { OutOfScopeError } from '../../../core/plugins/scope-guard.ts';
import { targetScope } from '../../../core/plugins/target-scope.ts';

// The published kit is the engine's own code, not a copy: each name is the very function
// the engine runs (test/architecture checks that core/author-kit/ holds nothing but re-exports).
test('rampart/author-kit hands out the engine\'s own functions, and nothing else', (t) => {
  const engine = { runCheck, OutOfScopeError, targetScope, mockExecutorContext, createSandbox, SandboxError, formatEvent, sampleEvent };
  t.deepEqual(Object.keys(kit).sort(), Object.keys(engine).sort());
  for (const [name, value] of Object.entries(engine)) t.is((kit as Record<string, unknown>)[name], value, name);
});
