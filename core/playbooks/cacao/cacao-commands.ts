import type { ReferenceActionInput } from '../../actions/action-draft.ts';
import { configRuleFor } from '../../actions/action-config-rules.ts';
import type { ActionVersion } from '../../actions/action-version.ts';
import type { CacaoAgentTarget, CacaoCommand } from './cacao-types.ts';
import { templateToCacao } from './cacao-variables.ts';
import { cacaoId } from './uuid-v5.ts';

/**
 * Export side: the CACAO command and agent that say most honestly what an action does.
 *   webhook            → `http-api` (method, path and query, headers, body; host in the agent)
 *   remote             → `http-api` (the step parameters as a JSON body)
 *   approval           → `manual` (the approval message), agent: the tenant's approvers group
 *   local executable   → `bash` (the executable's name), agent: the Rampart platform
 *   agent executable   → `bash` (the script's name), agent: that on-site agent
 *   JavaScript (local or agent), notification → `x-rampart-javascript` / `x-rampart-notification`:
 *     CACAO has no command type for them (its command types are an open vocabulary), so
 *     they say what they are and only Rampart runs them (from the extension).
 * Templates `{{ name }}` become CACAO references `__name__:value`.
 */
export interface ExportedCommand {
  command: CacaoCommand;
  agentId: string;
  agent: CacaoAgentTarget;
}

/** The URL pattern of the official http-api agent schema (unanchored, as there). */
const SCHEMA_URL = /[(http(s)?):/(www.)?a-zA-Z0-9@:%._+~#=]{2,256}\.[a-z]{2,6}\b([-a-zA-Z0-9@:%_+.~#?&//=]*)/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** An http-api agent for `scheme://authority`: `url` when the schema accepts it, else the host by kind and the port. */
export function httpAgent(tenantId: string, origin: string): { agentId: string; agent: CacaoAgentTarget } {
  const m = /^(https?):\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?$/i.exec(origin);
  const scheme = (m?.[1] ?? 'https').toLowerCase();
  const host = m?.[2] ?? origin;
  const port = m?.[3] ?? (scheme === 'http' ? '80' : '443');
  const agent: CacaoAgentTarget = { type: 'http-api', name: origin };
  if (SCHEMA_URL.test(origin) && !IPV4.test(host)) agent.address = { url: [origin] };
  else if (IPV4.test(host)) agent.address = { ipv4: [host] };
  else if (host.startsWith('[')) agent.address = { ipv6: [host.slice(1, -1)] };
  else agent.address = { dname: [host] };
  agent.port = port;
  return { agentId: cacaoId('http-api', `${tenantId}:agent:${origin.toLowerCase()}`), agent };
}

function splitUrl(url: string): { origin: string; rest: string } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(url);
  return m ? { origin: m[1]!, rest: m[2] || '/' } : { origin: url, rest: '/' };
}

const platform = (tenantId: string) => ({
  agentId: cacaoId('security-category', `${tenantId}:agent:platform`),
  agent: { type: 'security-category', name: 'Rampart platform', description: 'The Rampart server that runs the playbook.', category: ['orchestrator'] },
});

const onSiteAgent = (tenantId: string, target: string) => ({
  agentId: cacaoId('security-category', `${tenantId}:agent:onsite:${target}`),
  agent: { type: 'security-category', name: `Rampart agent ${target}`, description: `The Rampart on-site agent (or agent label) "${target}".`, category: ['endpoint'] },
});

export function commandForAction(tenantId: string, a: ActionVersion): ExportedCommand {
  const config = a.config;
  const rule = configRuleFor(a.type, a.executor.type);
  switch (rule?.name) {
    case 'webhook': {
      const { origin, rest } = splitUrl(String(config.url));
      const command: CacaoCommand = { type: 'http-api', description: a.description || `Webhook action ${a.name}`, command: `${String(config.method ?? 'POST')} ${templateToCacao(rest)} HTTP/1.1` };
      const headers = (config.headers ?? {}) as Record<string, string>;
      if (Object.keys(headers).length) command.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [templateToCacao(v)]]));
      if (typeof config.body_template === 'string') command.content = templateToCacao(config.body_template);
      return { command, ...httpAgent(tenantId, origin) };
    }
    case 'remote': {
      const { origin, rest } = splitUrl(String(a.executor.target ?? config.target));
      const body = Object.fromEntries(a.parameters.map((p) => [p.name, `__${p.name}__:value`]));
      const command: CacaoCommand = {
        type: 'http-api',
        description: `${a.description ? `${a.description} ` : ''}(Rampart remote executor: the step parameters as JSON, shaped by the action's input_mapping.)`,
        command: `${a.executor.method ?? String(config.method ?? 'POST')} ${rest} HTTP/1.1`,
        headers: { 'Content-Type': ['application/json'] },
        content: JSON.stringify(body),
      };
      return { command, ...httpAgent(tenantId, origin) };
    }
    case 'approval':
      return {
        command: { type: 'manual', description: a.description || `Approval action ${a.name}`, command: typeof config.message === 'string' ? templateToCacao(config.message) : `Approve or deny: ${a.name}` },
        agentId: cacaoId('group', `${tenantId}:agent:approvers`),
        agent: { type: 'group', name: 'Rampart approvers', description: 'The people the approval action lets decide (approve or deny through the Rampart API).' },
      };
    case 'executable':
      return { command: { type: 'bash', description: `Runs the admin-installed executable ${String(config.target ?? a.executor.target)} from Rampart's scripts directory with the step parameters as JSON on stdin.`, command: String(config.target ?? a.executor.target) }, ...platform(tenantId) };
    case 'agent_executable': {
      const target = String(config.target ?? a.executor.target);
      return { command: { type: 'bash', description: `Runs the executable ${String(config.script)} from the agent's scripts directory with the step parameters as JSON on stdin.`, command: String(config.script) }, ...onSiteAgent(tenantId, target) };
    }
    case 'script_local':
    case 'agent_script': {
      const where = rule.name === 'agent_script' ? onSiteAgent(tenantId, String(config.target ?? a.executor.target)) : platform(tenantId);
      return { command: { type: 'x-rampart-javascript', description: `JavaScript run in an isolate by Rampart (action ${a.name}); the source is in the Rampart extension.` }, ...where };
    }
    default:
      return { command: { type: 'x-rampart-notification', description: `Rampart ${config.channel === 'email' ? 'email' : 'chat'} notification (action ${a.name}).` }, ...platform(tenantId) };
  }
}

/** The action as a reference-view input (the extension's copy, recreated by an import elsewhere). */
export function referenceInputOf(a: ActionVersion): ReferenceActionInput {
  const config: Record<string, unknown> = { ...a.config };
  if (a.executor.target !== undefined && !('target' in config)) config.target = a.executor.target;
  if (a.executor.method !== undefined && !('method' in config)) config.method = a.executor.method;
  if (a.inputMapping !== null && !('input_mapping' in config)) config.input_mapping = a.inputMapping;
  return {
    name: a.name,
    type: a.type,
    executor: a.executor.type,
    description: a.description,
    parameters: a.parameters,
    config,
    version: a.version,
    timeout_seconds: a.timeoutSeconds,
    retry: { max_attempts: a.retry.maxAttempts, backoff_seconds: a.retry.backoffSeconds },
  };
}
