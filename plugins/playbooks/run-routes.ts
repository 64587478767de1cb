import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf } from '../../core/http/pagination.ts';
import type { RunRequest } from '../../core/playbooks/runs/run-service.ts';
import { dryRunSchema, runIdParams, runPayload, runPlaybookParams, runSchema, runStartedSchema, runsQuery, stepSchema } from './run-schemas.ts';

const tags = ['api', 'playbooks'];
const read = { access: { scope: ['playbooks:read'] } };
const run = { access: { scope: ['playbooks:run'] } };

/** Running playbooks: run (or dry-run with mocks), execution records, step records, cancel. */
export function runRoutes(ctx: AppContext): ServerRoute[] {
  const runs = () => ctx.services.playbookRuns;
  const who = (request: Parameters<typeof callerOf>[0]) => {
    const c = callerOf(request);
    return { tenantId: c.tenantId, userId: c.userId, tokenId: c.tokenId };
  };
  return [
    {
      method: 'POST',
      path: '/api/playbooks/{id}/run',
      options: {
        auth: run,
        tags,
        description: 'Run a playbook (or dry-run it)',
        notes: [
          'Starts a run of the active version at once: 202 with `status` running (event playbook.started); follow it at GET /api/playbooks/executions/{execution_id}. A disabled playbook answers 409 playbook_disabled unless `dry_run` is true.',
          'dry_run: 200 with the plan — every step the flow would reach, in order, with its action (name and version), rendered parameters, unresolved placeholders, what its executor would send (secrets ********), the branch a condition takes and the would-be final status; nothing runs and nothing is stored. `mocks` (`{<step_id>: {status, output}}`) make steps "return" a result; an unmocked action step is taken to complete with output `{}`.',
        ].join('\n\n'),
        plugins: { rampart: { errors: [404, 409] } },
        validate: { params: runPlaybookParams, query: Joi.object({}), payload: runPayload },
        response: { status: { 200: dataOf(dryRunSchema, 'PlaybookDryRunResponse'), 202: dataOf(runStartedSchema, 'PlaybookRunResponse') } },
      },
      handler: async (request, h) => {
        const { id } = request.params as { id: string };
        const result = await runs().run(who(request), id, request.payload as RunRequest);
        if ('plan' in result) return h.response({ data: result.plan }).code(200);
        const r = result.run;
        return h.response({ data: { execution_id: r.execution_id, playbook_id: r.playbook_id, status: r.status, started_at: r.started_at } }).code(202);
      },
    },
    {
      method: 'GET',
      path: '/api/playbooks/{id}/executions',
      options: {
        auth: read,
        tags,
        description: 'Executions of a playbook, newest first',
        validate: { params: runPlaybookParams, query: runsQuery },
        response: { status: { 200: listOf(runSchema, 'PlaybookExecutionList') } },
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
      path: '/api/playbooks/executions/{execution_id}',
      options: {
        auth: read,
        tags,
        description: 'One playbook execution record',
        validate: { params: runIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(runSchema, 'PlaybookExecutionResponse') } },
      },
      handler: async (request) => ({ data: await runs().get(callerOf(request).tenantId, (request.params as { execution_id: string }).execution_id) }),
    },
    {
      method: 'GET',
      path: '/api/playbooks/executions/{execution_id}/steps',
      options: {
        auth: read,
        tags,
        description: 'The step records of a playbook execution, in the order they started',
        notes: 'An action step\'s `output` is `{execution_id, status, output}` of its action execution (GET /api/actions/executions/{execution_id} has its logs); a condition step\'s is `{result}`. Steps the run never reached are listed `skipped` once it has ended.',
        validate: { params: runIdParams, query: Joi.object({}) },
        response: { status: { 200: Joi.object({ data: Joi.array().items(stepSchema).required() }).label('PlaybookStepList') } },
      },
      handler: async (request) => ({ data: await runs().steps(callerOf(request).tenantId, (request.params as { execution_id: string }).execution_id) }),
    },
    {
      method: 'POST',
      path: '/api/playbooks/executions/{execution_id}/cancel',
      options: {
        auth: run,
        tags,
        description: 'Cancel a playbook execution',
        notes: 'A pending, running or paused run ends `cancelled` (event playbook.failed with status cancelled); the action executions of its running steps are cancelled too. An ended run answers 409 execution_finished; a run paused on an approval step whose request was decided first answers 409 approval_resolved and follows the decision.',
        plugins: { rampart: { errors: [404, 409] } },
        validate: { params: runIdParams, query: Joi.object({}), payload: Joi.object({}).allow(null) },
        response: { status: { 200: dataOf(runSchema, 'PlaybookCancelResponse') } },
      },
      handler: async (request) => ({ data: await runs().cancel(callerOf(request).tenantId, (request.params as { execution_id: string }).execution_id) }),
    },
  ];
}
