import Joi from 'joi';

/** `page` and `per_page` for every list route; out-of-range values are a 400, not clamped. */
export const pageQuery = {
  page: Joi.number().integer().min(1).max(1_000_000).default(1).description('Page number, from 1.'),
  per_page: Joi.number().integer().min(1).max(100).default(20).description('Items per page, 1-100.'),
};

export interface ListMeta {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}

export function listMeta(total: number, page: number, perPage: number): ListMeta {
  return { total, page, per_page: perPage, total_pages: Math.ceil(total / perPage) };
}

/** Response schema of the `meta` object, for route documentation. */
export const listMetaSchema = Joi.object({
  total: Joi.number().integer().min(0).required(),
  page: Joi.number().integer().min(1).required(),
  per_page: Joi.number().integer().min(1).required(),
  total_pages: Joi.number().integer().min(0).required(),
}).label('ListMeta');

/** `{data: [item], meta}` response schema. */
export function listOf(item: Joi.Schema, label: string): Joi.ObjectSchema {
  return Joi.object({ data: Joi.array().items(item).required(), meta: listMetaSchema.required() }).label(label);
}

/** `{data: item}` response schema. */
export function dataOf(item: Joi.Schema, label: string): Joi.ObjectSchema {
  return Joi.object({ data: item.required() }).label(label);
}
