import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AgentJobOutcome, AgentLogLine } from '../../core/agent-protocol.ts';
import type { AppContext } from '../../core/app-context.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { agentOf, AGENT_STRATEGY } from './agent-auth.ts';
import { claimedJobSchema, claimPayload, jobIdParams, logsPayload, resultPayload } from './agent-schemas.ts';

const tags = ['api', 'agents'];
/**
 * Agents call these by design (one long poll per free slot, a heartbeat per running job
 * every few seconds), so they are kept out of the tenant's tier budget: a busy agent
 * fleet must not starve the tenant's API users, nor be starved by them. What bounds them
 * is the protocol (one claim at a time per slot, batched log lines, at most 500 per call).
 */
const options = { auth: { strategy: AGENT_STRATEGY }, tags, plugins: { rampart: { rateLimit: false as const, errors: [409] } } };

/** The agent-facing protocol, authenticated with the agent token. */
export function agentJobRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.agents;
  return [
    {
      method: 'POST',
      path: '/api/agent/jobs/claim',
      options: {
        ...options,
        description: 'Agent: wait for a job',
        notes: 'Long poll of up to `wait_seconds` (0-30, default 25): 200 with the job (its parameters included) once one aimed at this agent\'s name or labels is queued, or 204 when none came. Claiming holds the job for `lease_ms`: start it within that, or it goes back to the queue.',
        validate: { payload: claimPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(claimedJobSchema, 'AgentClaimResponse'), 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        const wait = ((request.payload as { wait_seconds?: number } | null)?.wait_seconds ?? 25) * 1000;
        const gone = new AbortController();
        // The response closing before it was written means the agent went away: stop waiting, claim nothing.
        const res = request.raw.res;
        res.once('close', () => {
          if (!res.writableEnded) gone.abort();
        });
        const job = await service.claim(agentOf(request), wait, gone.signal);
        return job ? { data: job } : h.response().code(204);
      },
    },
    {
      method: 'POST',
      path: '/api/agent/jobs/{id}/start',
      options: {
        ...options,
        description: 'Agent: start a claimed job',
        notes: 'Only the claiming agent, once: a job that is not claimed by it (its claim lapsed, it was cancelled) is 409 and must not run.',
        validate: { params: jobIdParams, payload: Joi.object({}).allow(null), query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.object({ status: Joi.string().valid('running').required() }), 'AgentStartResponse') } },
      },
      handler: async (request) => {
        await service.start(agentOf(request), String(request.params.id));
        return { data: { status: 'running' } };
      },
    },
    {
      method: 'POST',
      path: '/api/agent/jobs/{id}/logs',
      options: {
        ...options,
        description: 'Agent: heartbeat with log lines',
        notes: 'Renews the running job\'s lease and hands over log lines. `cancel: true` means stop the job now (cancelled or timed out); its result will be refused.',
        validate: { params: jobIdParams, payload: logsPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.object({ cancel: Joi.boolean().required() }), 'AgentHeartbeatResponse') } },
      },
      handler: async (request) => {
        const lines = ((request.payload as { lines?: AgentLogLine[] } | null)?.lines ?? []);
        return { data: await service.heartbeat(agentOf(request), String(request.params.id), lines) };
      },
    },
    {
      method: 'POST',
      path: '/api/agent/jobs/{id}/result',
      options: {
        ...options,
        description: 'Agent: report a job\'s result',
        notes: 'Only by the agent holding the job. A result after the job ended otherwise (timeout, cancel, revocation) is 409 `job_finished`.',
        validate: { params: jobIdParams, payload: resultPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(Joi.object({ status: Joi.string().required() }), 'AgentResultResponse') } },
      },
      handler: async (request) => {
        const outcome = request.payload as AgentJobOutcome;
        await service.finish(agentOf(request), String(request.params.id), outcome);
        return { data: { status: outcome.status } };
      },
    },
  ];
}
