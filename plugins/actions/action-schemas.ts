import Joi from 'joi';
import { ACTION_NAME_PATTERN, ACTION_TYPES, DEFINITION_EXECUTORS, DEFINITION_TYPE_PATTERN, EXECUTOR_KINDS, MAX_TIMEOUT_SECONDS } from '../../core/actions/action-kinds.ts';
import { HTTP_METHODS } from '../../core/actions/action-config-rules.ts';
import { PARAMETER_TYPES } from '../../core/actions/action-version.ts';
import { VERSION_PATTERN } from '../../core/actions/semantic-version.ts';
import { recordId } from '../../core/http/common-schemas.ts';

const iso = Joi.string().isoDate();

export const actionIdParams = Joi.object({ id: recordId('act', 'an action id').required() });

const version = Joi.string().pattern(VERSION_PATTERN).messages({ 'string.pattern.base': '{#label} must be a semantic version MAJOR.MINOR.PATCH (e.g. 1.2.0)' });
const name = Joi.string().trim().min(1).max(100).pattern(ACTION_NAME_PATTERN).messages({ 'string.pattern.base': '{#label} must not contain control characters' });
const description = Joi.string().allow('').max(2000);

export const parameterSpecSchema = Joi.object({
  name: Joi.string().max(64).required().description('An identifier; `{{ name }}` in templates. `target` and `asset_id` are reserved.'),
  type: Joi.string().valid(...PARAMETER_TYPES).required(),
  required: Joi.boolean().default(false),
  default: Joi.any().description('Used when the parameter is not sent; must itself pass the type and validation. Not for `secret`.'),
  validation: Joi.object({
    pattern: Joi.string().max(512).description('Full-match regular expression (string and string[] items); patterns that can backtrack catastrophically are refused.'),
    min: Joi.number().description('integer/number: the smallest value; string: the shortest length; string[]: the fewest items.'),
    max: Joi.number().description('integer/number: the largest value; string: the longest length; string[]: the most items.'),
  }).label('ActionParameterValidation'),
  credential: Joi.string().max(100).description('`secret` only: the credential holding the value (default: the parameter name).'),
  description: Joi.string().allow('').max(1000),
}).label('ActionParameter');

const parameters = Joi.array().items(parameterSpecSchema).max(100);

const retry = Joi.object({
  max_attempts: Joi.number().integer().min(1).max(10).default(1).description('Attempts in all (1 = no retry).'),
  backoff_seconds: Joi.number().integer().min(0).max(3600).default(0).description('Wait between attempts.'),
}).label('ActionRetry');

const timeout = Joi.number().integer().min(1).max(MAX_TIMEOUT_SECONDS).description(`Seconds an attempt may run (default 300, at most ${MAX_TIMEOUT_SECONDS}); then it is timed_out.`);
const config = Joi.object().unknown(true).description('Executor settings; what each (type, executor) pair takes is in docs/api.md (Actions: catalog).');

export const createActionPayload = Joi.object({
  name: name.required(),
  type: Joi.string().valid(...ACTION_TYPES).required(),
  executor: Joi.string().valid(...EXECUTOR_KINDS).required(),
  description,
  parameters,
  config,
  version: version.description('Default 1.0.0.'),
  timeout_seconds: timeout,
  retry,
}).label('CreateAction');

const definitionFields = {
  name,
  version: version.required(),
  type: Joi.string().pattern(DEFINITION_TYPE_PATTERN).required().messages({ 'string.pattern.base': '{#label} must be 1-64 of a-z 0-9 _ . -' })
    .description('One of the five types, or a custom one (which follows the rules of remediation).'),
  description,
  parameters,
  executor: Joi.object({
    type: Joi.string().valid(...DEFINITION_EXECUTORS).required(),
    target: Joi.string().max(2048).description('local: an executable file name; remote: an https URL; agent: an agent name or label.'),
    method: Joi.string().valid(...HTTP_METHODS).description('remote only (default POST).'),
  }).required().label('ActionExecutor'),
  input_mapping: Joi.object().unknown(true).allow(null).description('remote only: {fields: {<sent_name>: "<param>" | {param} | {value}}, include_unmapped?}.'),
  timeout_seconds: timeout,
  retry,
  enabled: Joi.boolean().description('Usable in production (default false; sandbox runs work either way).'),
  config,
};

export const definitionPayload = Joi.object({ ...definitionFields, name: name.required() }).label('ActionDefinition');
export const versionPayload = Joi.object(definitionFields).label('ActionDefinitionVersion');

export const patchPayload = Joi.object({
  enabled: Joi.boolean(),
  active_version: version.description('A registered version to make active (e.g. to go back).'),
}).min(1).label('PatchActionDefinition');

export const listQuery = {
  type: Joi.string().pattern(DEFINITION_TYPE_PATTERN).description('Only actions whose active version has this type (the five, or a custom definition type).'),
  search: Joi.string().trim().min(1).max(200).description('Case-insensitive substring of the name or description.'),
};

const behaviour = {
  type: Joi.string().required(),
  description: Joi.string().allow('').required(),
  version: Joi.string().required(),
  executor: Joi.string().required().description('The executor kind: local, remote, agent or webhook.'),
  executor_detail: Joi.object({ type: Joi.string().required(), target: Joi.string().allow(null).required(), method: Joi.string().allow(null).required() }).label('ActionExecutorDetail').required(),
  parameters: Joi.array().items(Joi.object().unknown(true)).required(),
  config: Joi.object().unknown(true).required(),
  input_mapping: Joi.object().unknown(true).allow(null).required(),
  timeout_seconds: Joi.number().integer().required(),
  retry: Joi.object({ max_attempts: Joi.number().integer().required(), backoff_seconds: Joi.number().integer().required() }).label('ActionRetryView').required(),
};

export const actionSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  ...behaviour,
  enabled: Joi.boolean().required(),
  view: Joi.string().valid('reference', 'definition').required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('Action');

export const createdSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().required(),
  executor: Joi.string().required(),
  version: Joi.string().required(),
  created_at: iso.required(),
}).label('ActionCreated');

export const registeredSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  version: Joi.string().required(),
  status: Joi.string().valid('registered').required(),
}).label('ActionDefinitionRegistered');

export const versionSchema = Joi.object({ id: Joi.string().required(), ...behaviour, active: Joi.boolean().required(), created_at: iso.required() }).label('ActionVersion');
