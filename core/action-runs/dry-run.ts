import type { ActionVersion } from '../actions/action-version.ts';
import type { ExecutorAsset } from '../plugin-api/index.ts';
import { executorKindOf } from './executor-choice.ts';
import { approvalMessage, approversOf } from './approval-request.ts';
import { runAttempt, type AttemptDeps } from './run-attempt.ts';
import { RunLog } from './run-log.ts';
import { SecretScrubber } from './secret-scrubber.ts';
import type { NewLogLine } from './execution-rows.ts';

/** A dry run never waits long: the executor only renders, it does not act. */
const DRY_RUN_TIMEOUT_SECONDS = 10;

export interface DryRunInput {
  executionId: string;
  tenantId: string;
  action: ActionVersion;
  params: Record<string, unknown>;
  secretParams: string[];
  secretValues: string[];
  asset: ExecutorAsset | null;
  sandbox: boolean;
}

export interface DryRunResult {
  status: 'completed' | 'failed';
  plan: Record<string, unknown>;
  error: { code: string; message: string } | null;
  logs: NewLogLine[];
}

/** What an approval action would ask for, without asking. */
function approvalPlan(action: ActionVersion, params: Record<string, unknown>, secretParams: string[]): Record<string, unknown> {
  const c = action.config;
  return {
    executor: 'approval',
    approval: {
      required_approvals: c.required_approvals ?? 1,
      approvers: approversOf(c.approvers as never),
      expires_in_seconds: c.expires_in_seconds ?? 86400,
      on_expiry: c.on_expiry ?? 'fail',
      message: approvalMessage(action, params, secretParams),
    },
  };
}

/**
 * Asks the executor what it would do (`ctx.dryRun`): the rendered request or command,
 * with every secret value (in any encoding) masked as `********`. Nothing is sent or
 * started; the parameters and credentials were checked exactly as for a real run.
 */
export async function dryRun(input: DryRunInput, deps: AttemptDeps): Promise<DryRunResult> {
  const scrubber = new SecretScrubber(input.secretValues);
  const log = new RunLog({ executionId: input.executionId, tenantId: input.tenantId, attempt: 0 }, scrubber, 200);
  const kind = executorKindOf(input.action);
  if (kind === 'approval') return { status: 'completed', plan: approvalPlan(input.action, input.params, input.secretParams), error: null, logs: [] };
  const action = { ...input.action, timeoutSeconds: Math.min(input.action.timeoutSeconds, DRY_RUN_TIMEOUT_SECONDS) };
  const outcome = await runAttempt(
    { executionId: input.executionId, tenantId: input.tenantId, attempt: 0, action, params: input.params, secretParams: input.secretParams, asset: input.asset, sandbox: input.sandbox, dryRun: true, signal: new AbortController().signal, log, scrubber },
    deps,
  );
  const plan = scrubber.value({ executor: kind, ...(outcome.plan ?? {}) });
  const ok = outcome.status === 'completed';
  return {
    status: ok ? 'completed' : 'failed',
    plan,
    error: ok ? null : scrubber.value(outcome.error ?? { code: outcome.status, message: 'The dry run failed.' }),
    logs: log.drain(true),
  };
}
