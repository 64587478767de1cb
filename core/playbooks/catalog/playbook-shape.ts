import Joi from 'joi';
import { VERSION_PATTERN } from '../../actions/semantic-version.ts';
import { STORED_EVENT_KINDS } from '../../domain/event-kinds.ts';
import { ValidationError } from '../../errors.ts';
import type { PlaybookDefinition } from '../playbook-types.ts';

/**
 * The shape of a playbook definition (joi): the first of the checks at create and PUT,
 * shared by the routes (payload validation, OpenAPI) and the catalog service (callers
 * that are not routes, such as the CACAO import). The language checks (graph,
 * conditions, placeholders) and action_ref resolution follow in playbook-checks.ts.
 */

export const TRIGGER_EVENTS = [...STORED_EVENT_KINDS, 'manual'] as const;
export const MAX_STEPS = 100;
export const MIN_TIMEOUT_MINUTES = 1;
export const MAX_TIMEOUT_MINUTES = 1440;
export const DEFAULT_TIMEOUT_MINUTES = 60;
/** Parameter names are what `{{ parameters.<name> }}` can say. */
export const PARAMETER_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const noControl = /^[^\x00-\x1f\x7f]*$/;
const text = (max: number) => Joi.string().max(max).pattern(noControl).messages({ 'string.pattern.base': '{#label} must not contain control characters' });

export const playbookVersionSchema = Joi.string().pattern(VERSION_PATTERN).messages({ 'string.pattern.base': '{#label} must be a semantic version MAJOR.MINOR.PATCH (e.g. 1.2.0)' });
export const playbookNameSchema = text(200).trim().min(1);
const stepRef = Joi.string().min(1).max(64).allow(null);
const conditionSet = Joi.object().unknown(true).description('Conditions in the trigger grammar (docs/api.md, Playbooks: definitions).');

const stepBase = {
  id: Joi.string().min(1).max(64).required().description('Unique in the playbook: 1-64 of A-Z a-z 0-9 _ -.'),
  name: text(200).min(1).description('Default: the step id.'),
};

const actionStep = Joi.object({
  ...stepBase,
  type: Joi.string().valid('action').required(),
  action_ref: text(300).min(1).required().description('An action id (`act_…`), a name (its active version at run time) or `name@1.2.0` (that version).'),
  parameters: Joi.object().unknown(true).default({}).description('Values may hold `{{ … }}` placeholders.'),
  on_success: stepRef.description('The next step; none ends this branch.'),
}).label('PlaybookActionStep');

const conditionStep = Joi.object({
  ...stepBase,
  type: Joi.string().valid('condition').required(),
  if: conditionSet.required().description('Over the run context: paths start with event., finding., asset., parameters. or steps.<id>.'),
  on_true: stepRef,
  on_false: stepRef,
}).label('PlaybookConditionStep');

const parallelStep = Joi.object({
  ...stepBase,
  type: Joi.string().valid('parallel').required(),
  next_steps: Joi.array().items(Joi.string().min(1).max(64)).min(1).max(MAX_STEPS).unique().required().description('The first step of each branch.'),
  on_success: stepRef.description('Runs once every branch has ended.'),
}).label('PlaybookParallelStep');

export const stepSchema = Joi.alternatives().conditional('.type', {
  switch: [
    { is: 'action', then: actionStep },
    { is: 'condition', then: conditionStep },
    { is: 'parallel', then: parallelStep },
  ],
  otherwise: Joi.object({ type: Joi.string().valid('action', 'condition', 'parallel').required() }).unknown(true),
}).label('PlaybookStep');

export const triggerSchema = Joi.object({
  event: Joi.string().valid(...TRIGGER_EVENTS).required().description('A stored event kind, or `manual` (run by hand only).'),
  conditions: conditionSet.default({}).description('Over the event\'s `data`; every entry must hold.'),
}).label('PlaybookTrigger');

export const definitionFields = {
  name: playbookNameSchema,
  version: playbookVersionSchema,
  description: text(2000).allow('').default(''),
  trigger: triggerSchema,
  steps: Joi.array().items(stepSchema).min(1).max(MAX_STEPS).description('Ordered; a run starts at the first.'),
  on_failure: Joi.string().valid('abort', 'continue').default('abort'),
  timeout_minutes: Joi.number().integer().min(MIN_TIMEOUT_MINUTES).max(MAX_TIMEOUT_MINUTES).default(DEFAULT_TIMEOUT_MINUTES).description('Longest a run may take: 1-1440, default 60.'),
  tags: Joi.array().items(Joi.string().min(1).max(50).pattern(noControl)).max(20).unique().default([]),
  parameters: Joi.object().pattern(PARAMETER_NAME_PATTERN, Joi.any()).max(50).default({}).description('Run parameters and their defaults (`{{ parameters.x }}`); at most 50.'),
};

/** POST: every required field of the spec. */
export const createDefinitionSchema = Joi.object({
  ...definitionFields,
  name: definitionFields.name.required(),
  version: definitionFields.version.required(),
  trigger: definitionFields.trigger.required(),
  steps: definitionFields.steps.required(),
}).label('PlaybookDefinition');

/** PUT: a full definition; `name` may be left out (kept) or changed. */
export const newVersionSchema = Joi.object({
  ...definitionFields,
  version: definitionFields.version.required(),
  trigger: definitionFields.trigger.required(),
  steps: definitionFields.steps.required(),
}).label('PlaybookNewVersion');

/**
 * The definition with defaults filled in (step names default to the step id), or a 400
 * `validation_failed` with one detail per problem (`field` as the routes name them, e.g.
 * `steps.2.on_success`).
 */
export function shapeOf(schema: Joi.ObjectSchema, input: unknown, fallbackName?: string): PlaybookDefinition {
  const { value, error } = schema.validate(input, { abortEarly: false, convert: true });
  if (error) {
    const details = error.details.map((d) => ({ field: d.path.length ? d.path.join('.') : 'payload', message: d.message.replace(/"/g, '') }));
    throw new ValidationError(`Invalid playbook: ${details.map((d) => d.message).join('; ')}.`, details);
  }
  const def = value as PlaybookDefinition;
  if (def.name === undefined && fallbackName !== undefined) def.name = fallbackName;
  for (const step of def.steps) if (step.name === undefined) step.name = step.id;
  return def;
}
