import Joi from 'joi';
import type { OptionField, OptionsSchema } from '../plugin-api/index.ts';

function fieldSchema(field: OptionField): Joi.Schema {
  let schema: Joi.Schema;
  switch (field.type) {
    case 'string':
      schema = Joi.string();
      break;
    case 'integer':
    case 'number': {
      let n = field.type === 'integer' ? Joi.number().integer() : Joi.number();
      if (field.min !== undefined) n = n.min(field.min);
      if (field.max !== undefined) n = n.max(field.max);
      schema = n;
      break;
    }
    case 'boolean':
      schema = Joi.boolean();
      break;
    case 'string[]':
      schema = Joi.array().items(Joi.string());
      break;
    case 'object':
      schema = Joi.object().unknown(true);
      break;
  }
  if (field.enum) schema = schema.valid(...field.enum);
  if (field.description) schema = schema.description(field.description);
  if (field.default !== undefined) schema = schema.default(field.default);
  return field.required ? schema.required() : schema;
}

/** Turns a plugin's data-described options schema into a joi schema (unknown keys rejected). */
export function optionsToJoi(schema: OptionsSchema = {}): Joi.ObjectSchema {
  const keys: Record<string, Joi.Schema> = {};
  for (const [name, field] of Object.entries(schema)) keys[name] = fieldSchema(field);
  return Joi.object(keys);
}

/** Validates and fills defaults; throws an Error whose message names the option. */
export function validateOptions(schema: OptionsSchema | undefined, values: Record<string, unknown>): Record<string, unknown> {
  const { value, error } = optionsToJoi(schema).validate(values, { abortEarly: true });
  if (error) throw new Error(error.details[0]!.message.replace(/"/g, ''));
  return value as Record<string, unknown>;
}

/** Copies options with secret fields replaced, for API responses and logs. */
export function redactOptions(schema: OptionsSchema | undefined, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) out[key] = schema?.[key]?.secret ? '[redacted]' : value;
  return out;
}
