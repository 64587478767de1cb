import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';

export const actionIdParams = Joi.object({ id: recordId('act', 'an action id (act_…)').required() });
export const executionIdParams = Joi.object({ execution_id: recordId('exe', 'an execution id (exe_…)').required() });
export const pageOnlyQuery = Joi.object(pageQuery);

const parameters = Joi.object().unknown(true).max(100).description('Parameter values by name; secret parameters take no value here (they come from the credential store).');

export const triggerPayload = Joi.object({
  target: recordId('ast', 'an asset id (ast_…)').allow(null).description('The asset the action acts on.'),
  parameters: parameters.required(),
  sandbox: Joi.boolean().default(false).description('Run without production access (sandbox credentials, no real outbound HTTP).'),
  dry_run: Joi.boolean().default(false).description('Validate and return what would happen, without running anything.'),
}).label('ActionTrigger');

export const executePayload = Joi.object({
  target: recordId('ast', 'an asset id (ast_…)').allow(null),
  parameters: parameters.default({}),
  sandbox: Joi.boolean().default(false),
  dry_run: Joi.boolean().default(false),
}).label('ActionExecute');

const logLine = Joi.object({
  timestamp: Joi.string().isoDate().required(),
  level: Joi.string().valid('DEBUG', 'INFO', 'WARN', 'ERROR').required(),
  message: Joi.string().allow('').required(),
  attempt: Joi.number().integer().min(0).required(),
}).label('ActionLogLine');

const error = Joi.object({ code: Joi.string().required(), message: Joi.string().allow('').required() }).allow(null);

export const executionSchema = Joi.object({
  execution_id: Joi.string().required(),
  action_id: Joi.string().required(),
  action_name: Joi.string().required(),
  action_version: Joi.string().required(),
  status: Joi.string().valid('pending', 'running', 'completed', 'failed', 'timed_out', 'cancelled').required(),
  target: Joi.string().allow(null).required(),
  parameters: Joi.object().unknown(true).required(),
  output: Joi.object().unknown(true).allow(null).required(),
  error: error.required(),
  sandbox: Joi.boolean().required(),
  dry_run: Joi.boolean().required(),
  attempt: Joi.number().integer().min(0).required(),
  max_attempts: Joi.number().integer().min(1).required(),
  approval_id: Joi.string().allow(null).required(),
  cancel_requested: Joi.boolean().required(),
  created_at: Joi.string().isoDate().required(),
  started_at: Joi.string().isoDate().allow(null).required(),
  completed_at: Joi.string().isoDate().allow(null).required(),
  duration_seconds: Joi.number().integer().min(0).allow(null).required(),
  logs: Joi.array().items(logLine),
}).label('ActionExecution');

export const triggerResultSchema = Joi.object({
  execution_id: Joi.string().required(),
  action_id: Joi.string().required(),
  status: Joi.string().required(),
  started_at: Joi.string().isoDate().allow(null).required(),
  created_at: Joi.string().isoDate().required(),
  sandbox: Joi.boolean().required(),
  dry_run: Joi.boolean().required(),
  approval_id: Joi.string().allow(null).required(),
  plan: Joi.object().unknown(true),
  error: error,
}).label('ActionTriggered');
