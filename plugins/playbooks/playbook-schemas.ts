import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';

export { createDefinitionSchema as createPlaybookPayload, newVersionSchema as putPlaybookPayload } from '../../core/playbooks/catalog/playbook-shape.ts';

const iso = Joi.string().isoDate();

export const playbookIdParams = Joi.object({ id: recordId('pbk', 'a playbook id').required() });

export const listQuery = {
  search: Joi.string().trim().min(1).max(200).description('Case-insensitive substring of the name or description.'),
  tag: Joi.string().min(1).max(50).description('Only playbooks whose active version carries this tag (exact).'),
};

export const patchPayload = Joi.object({ enabled: Joi.boolean().required() }).label('PatchPlaybook');

const trigger = Joi.object({ event: Joi.string().required(), conditions: Joi.object().unknown(true).required() }).label('PlaybookTriggerView');
const step = Joi.object({ id: Joi.string().required(), name: Joi.string().required(), type: Joi.string().valid('action', 'condition', 'parallel').required() }).unknown(true).label('PlaybookStepView');

const definition = {
  name: Joi.string().required(),
  version: Joi.string().required(),
  description: Joi.string().allow('').required(),
  trigger: trigger.required(),
  steps: Joi.array().items(step).required(),
  on_failure: Joi.string().valid('abort', 'continue').required(),
  timeout_minutes: Joi.number().integer().required(),
  tags: Joi.array().items(Joi.string()).required(),
  parameters: Joi.object().unknown(true).required(),
};

export const playbookSchema = Joi.object({
  id: Joi.string().required(),
  ...definition,
  enabled: Joi.boolean().required(),
  step_count: Joi.number().integer().required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('Playbook');

export const listItemSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  version: Joi.string().required(),
  description: Joi.string().allow('').required(),
  trigger: trigger.required(),
  step_count: Joi.number().integer().required(),
  tags: Joi.array().items(Joi.string()).required(),
  enabled: Joi.boolean().required(),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('PlaybookListItem');

export const createdSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  version: Joi.string().required(),
  step_count: Joi.number().integer().required(),
  created_at: iso.required(),
}).label('PlaybookCreated');

export const versionSchema = Joi.object({
  id: Joi.string().required(),
  ...definition,
  step_count: Joi.number().integer().required(),
  active: Joi.boolean().required(),
  created_at: iso.required(),
}).label('PlaybookVersion');
