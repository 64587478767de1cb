import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import Boom from '@hapi/boom';
import type { AgentService } from '../../core/agents/agent-service.ts';
import type { AgentPrincipal } from '../../core/agents/agent-views.ts';

/** The auth strategy of the agent-facing routes: `Authorization: Bearer <agent token>`. */
export const AGENT_STRATEGY = 'agent';

export function agentOf(request: Request): AgentPrincipal {
  return request.auth.credentials as unknown as AgentPrincipal;
}

/**
 * A second bearer scheme, separate from API tokens: an agent token opens only the
 * agent routes, and an API token never opens them. 401 in the one error shape for a
 * missing, unknown or revoked agent token; a revoked agent is refused on its very next call.
 */
/**
 * The 401, after the refused attempt is charged to the client address's bucket: agent
 * routes are otherwise exempt from rate limits, so without it unknown tokens could be
 * tried at full speed. Once the bucket is empty the answer is its 429.
 */
async function refuse(request: Request, message: string): Promise<never> {
  await request.server.plugins['rampart-rate-limit']?.chargeFailedAuthentication(request, { evenUnlimited: true });
  throw Boom.unauthorized(message, 'Bearer');
}

export function registerAgentAuth(server: Server, agents: AgentService): void {
  server.auth.scheme('rampart-agent', () => ({
    async authenticate(request: Request, h: ResponseToolkit) {
      const header = String(request.headers.authorization ?? '');
      const match = /^Bearer[ ]+([\x21-\x7e]+)\s*$/i.exec(header);
      if (!match) return refuse(request, 'Missing agent token (Authorization: Bearer <agent token>).');
      const agent = await agents.authenticate(match[1]!);
      if (!agent) return refuse(request, 'Unknown or revoked agent token.');
      return h.authenticated({ credentials: agent as unknown as Record<string, unknown> });
    },
  }));
  server.auth.strategy(AGENT_STRATEGY, 'rampart-agent');
}
