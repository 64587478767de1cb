/**
 * Rampart's author kit (`rampart/author-kit`): run a plugin the way the engine does,
 * with no server. `runCheck` is the very code the scan engine's workers run;
 * `mockExecutorContext` hands an executor recorded HTTP, served secrets and the real
 * sandbox; `formatEvent` renders an event through a forwarder into the exact syslog
 * line the engine sends.
 *
 * @packageDocumentation
 */
export { runCheck, type CheckAttempt, type CheckLog, type RunCheckOptions } from './run-check.ts';
export { OutOfScopeError } from './scoped-http.ts';
export { targetScope } from './target-scope.ts';
export { mockExecutorContext, type MockExecutorContext, type MockExecutorOptions, type MockLogLine } from './mock-executor-context.ts';
export { formatEvent, sampleEvent, type FormatEventOptions } from './format-event.ts';
export { createSandbox, type HostFunction, type SandboxOptions } from '../sandbox/sandbox.ts';
export { SandboxError, type SandboxErrorCode } from '../sandbox/sandbox-error.ts';
