import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import type { TriggerRequest } from '../../core/action-runs/execution-service.ts';
import type { ExecutionView } from '../../core/action-runs/execution-views.ts';
import { actionIdParams, executePayload, executionIdParams, executionSchema, pageOnlyQuery, triggerPayload, triggerResultSchema } from './run-schemas.ts';

const tags = ['api', 'actions'];
const read = { access: { scope: ['actions:read'] } };
const execute = { access: { scope: ['actions:execute'] } };

function triggered(e: ExecutionView, plan?: Record<string, unknown>) {
  return {
    execution_id: e.execution_id,
    action_id: e.action_id,
    status: e.status,
    started_at: e.started_at,
    created_at: e.created_at,
    sandbox: e.sandbox,
    dry_run: e.dry_run,
    approval_id: e.approval_id,
    ...(plan ? { plan, error: e.error } : {}),
  };
}

/** Running actions: trigger, execute-and-wait, executions, run logs, cancel. */
export function runRoutes(ctx: AppContext): ServerRoute[] {
  const runs = () => ctx.services.executions;
  const who = (request: Parameters<typeof callerOf>[0]) => {
    const c = callerOf(request);
    return { tenantId: c.tenantId, userId: c.userId, tokenId: c.tokenId };
  };
  return [
    {
      method: 'POST',
      path: '/api/actions/{id}/trigger',
      options: {
        auth: execute,
        tags,
        description: 'Trigger an action run',
        notes: [
          'Checks everything first (the action is usable, parameters valid, target asset exists, credentials present): any problem is a 4xx and nothing is queued. A disabled definition answers 409 action_disabled unless `sandbox` is true.',
          'Answers 202 with the queued run (`status` pending; event action.triggered) — follow it at GET /api/actions/executions/{execution_id}. Approval actions stay pending until their approval request is decided (`approval_id`).',
          'dry_run: 200 with `plan` (exactly what would run: the rendered request or command and its stdin, secrets as ********); the run record is kept with status completed (or failed when the plan cannot be made) and no event is emitted.',
        ].join('\n\n'),
        plugins: { rampart: { errors: [404, 409] } },
        validate: { params: actionIdParams, query: Joi.object({}), payload: triggerPayload },
        response: { status: { 200: dataOf(triggerResultSchema, 'ActionDryRunResponse'), 202: dataOf(triggerResultSchema, 'ActionTriggerResponse') } },
      },
      handler: async (request, h) => {
        const { id } = request.params as { id: string };
        const result = await runs().trigger(who(request), id, request.payload as TriggerRequest);
        return h.response({ data: triggered(result.execution, result.plan) }).code(result.plan ? 200 : 202);
      },
    },
    {
      method: 'POST',
      path: '/api/actions/{id}/execute',
      options: {
        auth: execute,
        tags,
        description: 'Run an action and wait for its result',
        notes: `Like trigger (target optional), but waits up to ${ctx.config.executors.executeWaitMs / 1000} s for the run to end: 200 with the whole execution record (output, error, logs) when it ended, else 202 with the record as it stands. Meant for testing actions, especially with \`sandbox: true\`. dry_run answers 200 with the plan in \`output.plan\`.`,
        plugins: { rampart: { errors: [404, 409] } },
        validate: { params: actionIdParams, query: Joi.object({}), payload: executePayload },
        response: { status: { 200: dataOf(executionSchema, 'ActionExecuteResponse'), 202: dataOf(executionSchema, 'ActionExecuteAccepted') } },
      },
      handler: async (request, h) => {
        const { id } = request.params as { id: string };
        const caller = who(request);
        const result = await runs().trigger(caller, id, request.payload as TriggerRequest);
        const ended = result.plan ? true : await ctx.services.executionControl.waitForEnd(caller.tenantId, result.execution.execution_id, ctx.config.executors.executeWaitMs);
        const view = await runs().get(caller.tenantId, result.execution.execution_id);
        return h.response({ data: view }).code(ended ? 200 : 202);
      },
    },
    {
      method: 'GET',
      path: '/api/actions/{id}/executions',
      options: {
        auth: read,
        tags,
        description: 'Executions of an action, newest first',
        validate: { params: actionIdParams, query: pageOnlyQuery },
        response: { status: { 200: listOf(executionSchema, 'ActionExecutionList') } },
      },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        const { page, per_page } = request.query as { page: number; per_page: number };
        const { data, total } = await runs().list(callerOf(request).tenantId, id, { page, perPage: per_page });
        return { data, meta: listMeta(total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/actions/{id}/runs',
      options: {
        auth: read,
        tags,
        description: 'Run logs of an action: its executions, newest first, each with its log lines',
        notes: 'Each item is the execution record with `logs` (at most 500 lines per run here; GET /api/actions/executions/{execution_id} has all of them).',
        validate: { params: actionIdParams, query: pageOnlyQuery },
        response: { status: { 200: listOf(executionSchema, 'ActionRunLogList') } },
      },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        const { page, per_page } = request.query as { page: number; per_page: number };
        const { data, total } = await runs().list(callerOf(request).tenantId, id, { page, perPage: per_page }, true);
        return { data, meta: listMeta(total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/actions/executions/{execution_id}',
      options: {
        auth: read,
        tags,
        description: 'One execution record with its logs',
        validate: { params: executionIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(executionSchema, 'ActionExecutionResponse') } },
      },
      handler: async (request) => ({ data: await runs().get(callerOf(request).tenantId, (request.params as { execution_id: string }).execution_id) }),
    },
    {
      method: 'POST',
      path: '/api/actions/executions/{execution_id}/cancel',
      options: {
        auth: execute,
        tags,
        description: 'Cancel an execution',
        notes: 'A pending run (queued, waiting for a retry or for approval) is cancelled at once (event action.failed with status cancelled; its approval request is cancelled too). A running one is asked to stop: the answer is 202 with `cancel_requested: true`, and it ends `cancelled` within a heartbeat (local executables are killed with their process group). An ended run answers 409 execution_finished; a run whose approval request was decided first answers 409 approval_resolved and follows the decision.',
        plugins: { rampart: { errors: [404, 409] } },
        validate: { params: executionIdParams, query: Joi.object({}), payload: Joi.object({}).allow(null) },
        response: { status: { 202: dataOf(executionSchema, 'ActionCancelResponse') } },
      },
      handler: async (request, h) => {
        const tenantId = callerOf(request).tenantId;
        const { execution_id } = request.params as { execution_id: string };
        await ctx.services.executionControl.cancel(tenantId, execution_id);
        return h.response({ data: await runs().get(tenantId, execution_id) }).code(202);
      },
    },
  ];
}
