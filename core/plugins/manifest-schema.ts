import Joi from 'joi';
// Only the two functions used: semver's index loads all of its ~45 modules.
import validVersion from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';
import { ASSET_TYPES } from '../domain/asset-type.ts';
import { SEVERITIES } from '../domain/severity.ts';
import { CAPABILITIES } from '../plugin-api/index.ts';

const SPECIFIC_SCAN_TYPES = ['web_app', 'network', 'api', 'ssl', 'api_discovery', 'dns', 'port'];

const optionField = Joi.object({
  type: Joi.string().valid('string', 'integer', 'number', 'boolean', 'string[]', 'object').required(),
  description: Joi.string(),
  required: Joi.boolean(),
  default: Joi.any(),
  enum: Joi.array().items(Joi.alternatives(Joi.string(), Joi.number())),
  min: Joi.number(),
  max: Joi.number(),
  secret: Joi.boolean(),
});

const base = {
  name: Joi.string().pattern(/^[a-z0-9][a-z0-9_-]{0,63}$/).required(),
  version: Joi.string()
    .custom((v, h) => (validVersion(v) ? v : h.error('any.invalid')))
    .required()
    .messages({ 'any.invalid': '{#label} must be a semver version' }),
  apiVersion: Joi.string()
    .custom((v, h) => (validRange(v) ? v : h.error('any.invalid')))
    .required()
    .messages({ 'any.invalid': '{#label} must be a semver range' }),
  description: Joi.string().allow('').required(),
  capabilities: Joi.array().items(Joi.string().valid(...CAPABILITIES)).unique().required(),
  options: Joi.object().pattern(Joi.string(), optionField),
};

const check = Joi.object({
  id: Joi.string().pattern(/^[a-z0-9_-]+:[a-z0-9_.-]+$/).required(),
  title: Joi.string().required(),
  category: Joi.string().pattern(/^[a-z0-9_-]+$/).required(),
  maxSeverity: Joi.string().valid(...SEVERITIES).required(),
  description: Joi.string(),
  assetTypes: Joi.array().items(Joi.string().valid(...ASSET_TYPES)),
  serviceAssetTypes: Joi.array().items(Joi.string().valid(...ASSET_TYPES)),
  produces: Joi.array().items(Joi.string().valid('services')).unique(),
  consumes: Joi.array().items(Joi.string().valid('services')).unique(),
  active: Joi.boolean(),
  run: Joi.function().required(),
}).unknown(true);

/** Shape checks for each plugin kind; unknown keys are allowed for forward compatibility. */
export const pluginSchema = Joi.alternatives().conditional('.kind', {
  switch: [
    {
      is: 'scanner',
      then: Joi.object({
        ...base,
        kind: Joi.string().valid('scanner').required(),
        scanTypes: Joi.array().items(Joi.string().valid(...SPECIFIC_SCAN_TYPES)).min(1).unique().required(),
        assetTypes: Joi.array().items(Joi.string().valid(...ASSET_TYPES)).min(1).unique().required(),
        checks: Joi.array().items(check).min(1).unique('id').required(),
        validateOptions: Joi.function(),
      }).unknown(true),
    },
    {
      is: 'executor',
      then: Joi.object({
        ...base,
        kind: Joi.string().valid('executor').required(),
        executorKind: Joi.string().pattern(/^[a-z0-9_-]+$/).required(),
        configSchema: Joi.object().pattern(Joi.string(), optionField),
        run: Joi.function().required(),
      }).unknown(true),
    },
    {
      is: 'forwarder',
      then: Joi.object({
        ...base,
        kind: Joi.string().valid('forwarder').required(),
        format: Joi.string().pattern(/^[a-z0-9_-]+$/).required(),
        formatMessage: Joi.function(),
        render: Joi.function(),
      })
        .or('formatMessage', 'render')
        .unknown(true),
    },
  ],
  otherwise: Joi.any().forbidden().messages({ 'any.unknown': 'kind must be scanner, executor or forwarder' }),
});
