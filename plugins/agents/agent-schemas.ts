import Joi from 'joi';

export const AGENT_NAME_PATTERN = /^[a-z0-9_.-]{1,64}$/;
const name = Joi.string().pattern(AGENT_NAME_PATTERN).messages({ 'string.pattern.base': '{{#label}} must be 1-64 of a-z, 0-9, _ . -' });
const time = Joi.string().isoDate();

export const agentIdParams = Joi.object({ id: Joi.string().pattern(/^agt_[0-9A-HJKMNP-TV-Z]{26}$/).required() });
export const jobIdParams = Joi.object({ id: Joi.string().pattern(/^job_[0-9A-HJKMNP-TV-Z]{26}$/).required() });

export const createAgentPayload = Joi.object({
  name: name.required(),
  labels: Joi.array().items(name).max(32).unique().default([]),
}).label('AgentCreate');

export const agentSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  labels: Joi.array().items(Joi.string()).required(),
  status: Joi.string().valid('online', 'offline', 'revoked').required(),
  token_prefix: Joi.string().required().description('The first characters of the token, to recognise it.'),
  last_seen_at: time.allow(null).required(),
  revoked_at: time.allow(null).required(),
  created_at: time.required(),
}).label('Agent');

export const createdAgentSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  labels: Joi.array().items(Joi.string()).required(),
  token: Joi.string().required().description('The agent token: shown this once, only its hash is kept.'),
  created_at: time.required(),
}).label('AgentCreated');

export const agentJobSchema = Joi.object({
  id: Joi.string().required(),
  execution_id: Joi.string().required(),
  attempt: Joi.number().integer().min(1).required(),
  target: Joi.string().required(),
  status: Joi.string().valid('queued', 'claimed', 'running', 'completed', 'failed', 'timed_out', 'cancelled').required(),
  command: Joi.object({ kind: Joi.string().valid('local', 'script').required(), name: Joi.string().allow(null).required() }).required(),
  sandbox: Joi.boolean().required(),
  error_code: Joi.string().allow(null).required(),
  created_at: time.required(),
  claimed_at: time.allow(null).required(),
  started_at: time.allow(null).required(),
  finished_at: time.allow(null).required(),
}).label('AgentJob');

export const claimPayload = Joi.object({ wait_seconds: Joi.number().integer().min(0).max(30).default(25) }).allow(null).label('AgentClaim');

export const claimedJobSchema = Joi.object({
  id: Joi.string().required(),
  execution_id: Joi.string().required(),
  attempt: Joi.number().integer().required(),
  command: Joi.alternatives(
    Joi.object({ kind: Joi.string().valid('local').required(), script: Joi.string().required() }),
    Joi.object({ kind: Joi.string().valid('script').required(), source: Joi.string().required() }),
  ).required(),
  params: Joi.object().unknown(true).required(),
  sandbox: Joi.boolean().required(),
  timeout_ms: Joi.number().integer().min(1).required(),
  lease_ms: Joi.number().integer().min(1).required(),
}).label('AgentClaimedJob');

const level = Joi.string().valid('DEBUG', 'INFO', 'WARN', 'ERROR');

export const logsPayload = Joi.object({
  lines: Joi.array().items(Joi.object({ level: level.required(), message: Joi.string().allow('').max(8192).required() })).max(500).default([]),
}).allow(null).label('AgentLogs');

export const resultPayload = Joi.object({
  status: Joi.string().valid('completed', 'failed', 'timed_out').required(),
  output: Joi.object().unknown(true).default({}),
  error: Joi.object({ code: Joi.string().pattern(/^[a-z][a-z0-9_]{0,63}$/).required(), message: Joi.string().max(4000).required() }),
}).label('AgentResult');
