import Joi from 'joi';
import { SCOPES } from '../domain/scopes.ts';
import { idPattern } from '../ids.ts';
import { AGENT_TARGET_PATTERN, isBareFileName, type ExecutorKind } from './action-kinds.ts';

/**
 * What `config` each (type, executor) pair takes, as data: the catalog validates with it,
 * the run engine and docs/api.md read the same rules. A definition's `executor.target`
 * and `executor.method` count as `config.target` / `config.method` here.
 */
export type ConfigRuleName =
  | 'webhook' | 'remote' | 'executable' | 'script_local' | 'agent_executable' | 'agent_script' | 'notification' | 'approval';

export interface ConfigRule {
  name: ConfigRuleName;
  /** What the action does at run time with this pair. */
  summary: string;
  schema: Joi.ObjectSchema;
  /** Fields holding `{{ name }}` templates (`headers.*`: every header value). */
  templates: string[];
  /** Outbound URL fields; `templated` ones may hold placeholders in the path and query only. */
  urls: Array<{ field: string; templated: boolean }>;
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const MAX_TEMPLATE = 65_536;
const url = Joi.string().trim().min(1).max(2048);
const method = Joi.string().valid(...HTTP_METHODS).default('POST');
const noLineBreaks = /^[^\r\n\0]*$/;
const fileName = Joi.string().max(255).custom((v: string, h) => (isBareFileName(v) ? v : h.message({ custom: '{#label} must be a bare file name (no /, \\, .., NUL, not hidden)' })));
const agentTarget = Joi.string().pattern(AGENT_TARGET_PATTERN).messages({ 'string.pattern.base': '{#label} must name an agent or label: 1-64 of a-z 0-9 _ . -' });
const source = Joi.string().min(1).max(MAX_TEMPLATE).description('JavaScript: the body of an async function of (params, { log, http }).');
const email = Joi.string().email({ tlds: { allow: false }, minDomainSegments: 1 }).max(254);

const rules: ConfigRule[] = [
  {
    name: 'webhook',
    summary: 'Sends one HTTP request rendered from the templates through the SSRF-guarded client.',
    schema: Joi.object({
      url: url.required(),
      method,
      headers: Joi.object().pattern(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, Joi.string().max(4096).pattern(noLineBreaks)).max(20).default({}),
      body_template: Joi.string().allow('').max(MAX_TEMPLATE),
    }),
    templates: ['url', 'headers.*', 'body_template'],
    urls: [{ field: 'url', templated: true }],
  },
  {
    name: 'remote',
    summary: 'POSTs (or `method`) the parameters as JSON, shaped by `input_mapping`, to the HTTPS `target`; the JSON answer is the output.',
    schema: Joi.object({ target: url.required(), method, input_mapping: Joi.any() }),
    templates: [],
    urls: [{ field: 'target', templated: false }],
  },
  {
    name: 'executable',
    summary: 'Runs the admin-installed executable `target` from `executors.local.scriptsDir` on the platform (parameters as JSON on stdin).',
    schema: Joi.object({ target: fileName.required() }),
    templates: [],
    urls: [],
  },
  {
    name: 'script_local',
    summary: 'Runs `source` in an isolated-vm isolate on the platform.',
    schema: Joi.object({ source: source.required() }),
    templates: [],
    urls: [],
  },
  {
    name: 'agent_executable',
    summary: 'Queues a job for the agent (or label) `target`, which runs the executable `script` from its own scripts directory.',
    schema: Joi.object({ target: agentTarget.required(), script: fileName.required() }),
    templates: [],
    urls: [],
  },
  {
    name: 'agent_script',
    summary: 'Queues a job for the agent (or label) `target`, which runs `source` in an isolate on its machine.',
    schema: Joi.object({ target: agentTarget.required(), source: source.required() }),
    templates: [],
    urls: [],
  },
  {
    name: 'notification',
    summary: 'Sends an email (SMTP settings of the platform) or a Slack/Teams-style chat message.',
    schema: Joi.object({
      channel: Joi.string().valid('email', 'chat').required(),
      to: Joi.when('channel', { is: 'email', then: Joi.array().items(email).min(1).max(50).required(), otherwise: Joi.forbidden() }),
      cc: Joi.when('channel', { is: 'email', then: Joi.array().items(email).max(50), otherwise: Joi.forbidden() }),
      subject: Joi.when('channel', { is: 'email', then: Joi.string().min(1).max(998).pattern(noLineBreaks).required(), otherwise: Joi.forbidden() }),
      body_template: Joi.when('channel', { is: 'email', then: Joi.string().min(1).max(MAX_TEMPLATE).required(), otherwise: Joi.forbidden() }),
      url: Joi.when('channel', { is: 'chat', then: url.required(), otherwise: Joi.forbidden() }),
      text_template: Joi.when('channel', { is: 'chat', then: Joi.string().min(1).max(MAX_TEMPLATE).required(), otherwise: Joi.forbidden() }),
      format: Joi.when('channel', { is: 'chat', then: Joi.string().valid('slack', 'teams').default('slack'), otherwise: Joi.forbidden() }),
    }),
    templates: ['subject', 'body_template', 'text_template'],
    urls: [{ field: 'url', templated: true }],
  },
  {
    name: 'approval',
    summary: 'Holds the run in `pending` with an approval request until enough people decide or it expires.',
    schema: Joi.object({
      required_approvals: Joi.number().integer().min(1).max(10).default(1),
      approvers: Joi.object({
        scopes: Joi.array().items(Joi.string().valid(...SCOPES)).max(20).unique(),
        user_ids: Joi.array().items(Joi.string().pattern(idPattern('usr'))).max(100).unique(),
      }).default({}),
      expires_in_seconds: Joi.number().integer().min(60).max(30 * 24 * 3600).default(86400),
      on_expiry: Joi.string().valid('fail', 'approve', 'deny').default('fail'),
      message: Joi.string().max(2000),
    }),
    templates: ['message'],
    urls: [],
  },
];

export const CONFIG_RULES: ReadonlyMap<ConfigRuleName, ConfigRule> = new Map(rules.map((r) => [r.name, r]));

/**
 * Which rule an action of `type` run by `executor` follows, or null when that executor
 * cannot run that type (approval runs only on the platform; script needs local or agent).
 * Types outside the five (definitions only) follow `remediation`.
 */
export function configRuleFor(type: string, executor: ExecutorKind): ConfigRule | null {
  const pick = (name: ConfigRuleName) => CONFIG_RULES.get(name)!;
  if (type === 'approval') return executor === 'local' ? pick('approval') : null;
  if (type === 'script') return executor === 'local' ? pick('script_local') : executor === 'agent' ? pick('agent_script') : null;
  if (executor === 'webhook') return pick('webhook');
  if (executor === 'remote') return pick('remote');
  if (executor === 'agent') return pick('agent_executable');
  return type === 'notification' ? pick('notification') : pick('executable');
}
