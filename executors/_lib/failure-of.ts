/**
 * Turns what an executor caught into a run result: template and config problems, and a
 * request that got no answer (refused destination, DNS, TLS, timeout, abort).
 */
import type { ExecutorContext, ExecutorResult } from '../../core/plugin-api/index.ts';
import { ConfigError } from './config-error.ts';
import { failed } from './http-result.ts';
import { TemplateError } from './template-error.ts';

// The platform client rejects with a stable snake_case `code` (destination_refused,
// dns_failed, connect_failed, tls_failed, timeout, aborted…); anything else is `unreachable`.
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : 'unreachable';
}

function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.slice(0, 500) || 'The request failed.';
}

function timedOut(ctx: Pick<ExecutorContext, 'signal'>): boolean {
  const reason = ctx.signal.reason as { name?: unknown } | undefined;
  return ctx.signal.aborted && reason?.name === 'TimeoutError';
}

/** The result for an error thrown while rendering, validating or sending. */
export function failureOf(err: unknown, ctx: Pick<ExecutorContext, 'signal'>): ExecutorResult {
  if (err instanceof TemplateError) return failed(err.code, err.message);
  if (err instanceof ConfigError) return failed(err.code, err.message);
  const code = codeOf(err);
  if (code === 'timeout' || timedOut(ctx)) {
    return { status: 'timed_out', output: {}, error: { code: 'timeout', message: 'No complete answer within the action timeout.' } };
  }
  // Stopped from outside (cancel, shutdown): the engine records why; the run did not finish.
  if (ctx.signal.aborted) return failed('aborted', 'The run was stopped before the request finished.');
  return failed(code, messageOf(err));
}
