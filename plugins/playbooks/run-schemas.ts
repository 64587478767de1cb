import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';
import { STORED_EVENT_KINDS } from '../../core/domain/event-kinds.ts';

export const runIdParams = Joi.object({ execution_id: recordId('pbx', 'a playbook execution id (pbx_…)').required() });
export const runPlaybookParams = Joi.object({ id: recordId('pbk', 'a playbook id (pbk_…)').required() });
export const runsQuery = Joi.object(pageQuery);

const mock = Joi.object({
  status: Joi.string().valid('completed', 'failed').required(),
  output: Joi.object().unknown(true).default({}),
}).label('PlaybookStepMock');

export const runPayload = Joi.object({
  target_asset_id: recordId('ast', 'an asset id (ast_…)').allow(null).description('The asset the steps act on (`{{ asset.* }}`, each action\'s target).'),
  parameters: Joi.object().unknown(true).max(50).default({}).description('Overrides the playbook\'s parameter defaults (`{{ parameters.x }}`).'),
  dry_run: Joi.boolean().default(false).description('Walk the flow and answer the plan; nothing runs and nothing is stored.'),
  mocks: Joi.when('dry_run', {
    is: true,
    then: Joi.object().pattern(Joi.string().max(64), mock).max(100),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{#label} is only allowed with dry_run: true' }),
  }).description('Dry run only: step id -> the result that step is taken to return.'),
  event: Joi.object({
    kind: Joi.string().valid(...STORED_EVENT_KINDS).required(),
    data: Joi.object().unknown(true).default({}),
  }).description('The event the run acts as if triggered by (`{{ event.* }}`, `{{ finding.* }}`).'),
}).label('PlaybookRun');

const error = Joi.object({ code: Joi.string().required(), message: Joi.string().allow('').required() }).unknown(true).allow(null);

export const runSchema = Joi.object({
  execution_id: Joi.string().required(),
  playbook_id: Joi.string().required(),
  playbook_name: Joi.string().required(),
  playbook_version: Joi.string().allow('').required(),
  status: Joi.string().valid('pending', 'running', 'paused', 'completed', 'failed', 'cancelled').required(),
  current_step: Joi.string().allow(null).required(),
  steps_completed: Joi.number().integer().min(0).required(),
  steps_total: Joi.number().integer().min(0).required(),
  created_at: Joi.string().isoDate().required(),
  started_at: Joi.string().isoDate().allow(null).required(),
  completed_at: Joi.string().isoDate().allow(null).required(),
  duration_seconds: Joi.number().integer().min(0).allow(null).required(),
  error: error.required(),
  trigger_event_id: Joi.string().allow(null).required(),
  target_asset_id: Joi.string().allow(null).required(),
  parameters: Joi.object().unknown(true).required(),
  depth: Joi.number().integer().min(0).required(),
  cancel_requested: Joi.boolean().required(),
}).label('PlaybookExecution');

export const runStartedSchema = Joi.object({
  execution_id: Joi.string().required(),
  playbook_id: Joi.string().required(),
  status: Joi.string().required(),
  started_at: Joi.string().isoDate().allow(null).required(),
}).label('PlaybookRunStarted');

export const stepSchema = Joi.object({
  step_id: Joi.string().required(),
  step_name: Joi.string().required(),
  type: Joi.string().valid('action', 'condition', 'parallel').required(),
  status: Joi.string().valid('pending', 'running', 'waiting', 'completed', 'failed', 'skipped', 'cancelled').required(),
  output: Joi.object().unknown(true).required(),
  error: Joi.object().unknown(true).allow(null).required(),
  action_execution_id: Joi.string().allow(null).required(),
  started_at: Joi.string().isoDate().allow(null).required(),
  completed_at: Joi.string().isoDate().allow(null).required(),
}).label('PlaybookStepExecution');

const plannedStep = Joi.object({
  step_id: Joi.string().required(),
  step_name: Joi.string().required(),
  type: Joi.string().required(),
  would_run: Joi.boolean().required(),
  action: Joi.object({ id: Joi.string().required(), name: Joi.string().required(), version: Joi.string().required() }).allow(null).required(),
  parameters: Joi.any().required(),
  unresolved_placeholders: Joi.array().items(Joi.string()).required(),
  plan: Joi.object({
    status: Joi.string().valid('completed', 'failed').required(),
    request: Joi.object().unknown(true).allow(null).required(),
    error: error.required(),
  }).allow(null).required(),
  outcome: Joi.object({ status: Joi.string().required(), output: Joi.any(), mocked: Joi.boolean().required() }).allow(null).required(),
  branch: Joi.string().valid('on_true', 'on_false').allow(null).required(),
}).label('PlaybookPlannedStep');

export const dryRunSchema = Joi.object({
  playbook_id: Joi.string().required(),
  dry_run: Joi.boolean().valid(true).required(),
  status: Joi.string().valid('completed', 'failed').required().description('The status the run would end with: failed when a step fails (its plan, or its mock) and on_failure is abort.'),
  failed_steps: Joi.array().items(Joi.string()).required().description('The steps whose outcome is failed, in walk order.'),
  steps: Joi.array().items(plannedStep).required(),
}).label('PlaybookDryRun');
