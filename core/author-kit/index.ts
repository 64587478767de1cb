/**
 * Rampart's author kit (`rampart/author-kit`): run a plugin the way the engine does,
 * with no server. It only re-exports: the code lives where the engine hosts extensions
 * (`core/plugins/`). `runCheck` is the very code the scan engine's workers run;
 * `mockExecutorContext` hands an executor recorded HTTP, served secrets and the real
 * sandbox; `formatEvent` renders an event through a forwarder into the exact syslog
 * line the engine sends.
 *
 * @packageDocumentation
 */
export { runCheck, type CheckAttempt, type CheckLog, type RunCheckOptions } from '../plugins/run-check.ts';
export { OutOfScopeError } from '../plugins/scope-guard.ts';
export { targetScope } from '../plugins/target-scope.ts';
export {
  mockExecutorContext,
  createSandbox,
  SandboxError,
  type MockExecutorContext,
  type MockExecutorOptions,
  type MockLogLine,
  type HostFunction,
  type SandboxOptions,
  type SandboxErrorCode,
} from '../plugins/mock-executor-context.ts';
export { formatEvent, sampleEvent, type FormatEventOptions } from '../plugins/format-event.ts';
