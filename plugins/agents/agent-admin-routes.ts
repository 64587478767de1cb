import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { agentView, jobListView } from '../../core/agents/agent-views.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf, listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { toIsoRequired } from '../../core/time.ts';
import { agentIdParams, agentJobSchema, agentSchema, createAgentPayload, createdAgentSchema } from './agent-schemas.ts';

const auth = { access: { scope: ['integrations:manage'] } };
const tags = ['api', 'agents'];

/** Registering, listing and revoking on-site agents, and their recent jobs (scope `integrations:manage`). */
export function agentAdminRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.agents;
  const view = (a: Parameters<typeof agentView>[0]) => agentView(a, Date.now(), service.settings.onlineWindowMs);
  return [
    {
      method: 'POST',
      path: '/api/agents',
      options: {
        auth,
        tags,
        description: 'Register an on-site agent',
        notes: 'Answers the agent token once (`rmpa_…`); only its SHA-256 is stored. A job whose target is the agent\'s name or one of its labels may run on it. A name taken in the tenant (revoked agents keep theirs) is 409 `agent_exists`.',
        validate: { payload: createAgentPayload, query: Joi.object({}) },
        response: { status: { 201: dataOf(createdAgentSchema, 'AgentCreatedResponse') } },
        plugins: { rampart: { errors: [409] } },
      },
      handler: async (request, h) => {
        const { agent, token } = await service.register(callerOf(request).tenantId, request.payload as { name: string; labels: string[] });
        return h.response({ data: { id: agent.id, name: agent.name, labels: agent.labels, token, created_at: toIsoRequired(agent.createdAt) } }).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/agents',
      options: {
        auth,
        tags,
        description: 'List on-site agents',
        notes: `Newest first. \`status\`: \`revoked\`, \`online\` (seen within the last ${Math.round(service.settings.onlineWindowMs / 1000)} s: a connected agent calls at least every long-poll wait) or \`offline\`.`,
        validate: { query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(agentSchema, 'AgentList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.list(callerOf(request).tenantId, { page, perPage: per_page });
        return { data: result.rows.map(view), meta: listMeta(result.total, page, per_page) };
      },
    },
    {
      method: 'GET',
      path: '/api/agents/{id}',
      options: {
        auth,
        tags,
        description: 'Get an on-site agent',
        validate: { params: agentIdParams, query: Joi.object({}) },
        response: { status: { 200: dataOf(agentSchema, 'AgentResponse') } },
      },
      handler: async (request) => ({ data: view(await service.get(callerOf(request).tenantId, String(request.params.id))) }),
    },
    {
      method: 'DELETE',
      path: '/api/agents/{id}',
      options: {
        auth,
        tags,
        description: 'Revoke an on-site agent',
        notes: 'Its token stops working at once. Jobs it claimed but had not started go back to the queue; jobs it was running fail with `agent_revoked` (they are not run again elsewhere). Revoking twice is harmless.',
        validate: { params: agentIdParams, query: Joi.object({}) },
        response: { status: { 204: Joi.any().empty() } },
      },
      handler: async (request, h) => {
        await service.revoke(callerOf(request).tenantId, String(request.params.id));
        return h.response().code(204);
      },
    },
    {
      method: 'GET',
      path: '/api/agents/{id}/jobs',
      options: {
        auth,
        tags,
        description: 'Recent jobs of an on-site agent',
        notes: 'Newest first: status, the command\'s kind and script name, timestamps. Never parameters, script source or output.',
        validate: { params: agentIdParams, query: Joi.object({ ...pageQuery }) },
        response: { status: { 200: listOf(agentJobSchema, 'AgentJobList') } },
      },
      handler: async (request) => {
        const { page, per_page } = request.query as { page: number; per_page: number };
        const result = await service.listJobs(callerOf(request).tenantId, String(request.params.id), { page, perPage: per_page });
        return { data: result.rows.map(jobListView), meta: listMeta(result.total, page, per_page) };
      },
    },
  ];
}
