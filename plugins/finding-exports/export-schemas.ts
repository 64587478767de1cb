import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { EXPORT_FORMATS } from '../../core/exports/export-formats.ts';
import { findingFilterKeys, findingSortKeys } from '../findings/finding-schemas.ts';

const iso = Joi.string().isoDate();

/** The keys of GET /api/findings' query; page/per_page only cut the export to that page when given. */
export const exportFiltersSchema = Joi.object({
  ...findingFilterKeys,
  ...findingSortKeys,
  page: Joi.number().integer().min(1).max(1_000_000).description('With per_page: export only this page of the list.'),
  per_page: Joi.number().integer().min(1).max(100).description('With page: export only that page of the list (default: every matching finding).'),
})
  .with('page', 'per_page')
  .label('FindingExportFilters');

export const exportPayload = Joi.object({
  format: Joi.string().valid(...EXPORT_FORMATS).required().description('csv, json or pdf.'),
  filters: exportFiltersSchema.default({}),
}).label('FindingExportRequest');

export const exportIdParams = Joi.object({
  id: recordId('exp', 'an export id').required(),
});

export const exportSchema = Joi.object({
  id: Joi.string().required(),
  format: Joi.string().valid(...EXPORT_FORMATS).required(),
  status: Joi.string().valid('queued', 'running', 'completed', 'failed', 'expired').required(),
  filters: Joi.object().unknown(true).required(),
  total_rows: Joi.number().integer().min(0).required().description('Findings that matched when the export was requested.'),
  row_count: Joi.number().integer().min(0).allow(null).required().description('Findings written to the file; null until completed.'),
  size_bytes: Joi.number().integer().min(0).allow(null).required(),
  error: Joi.string().allow(null).required(),
  created_at: iso.required(),
  started_at: iso.allow(null).required(),
  completed_at: iso.allow(null).required(),
  expires_at: iso.allow(null).required().description('After this time the file is deleted and the download answers 410.'),
  updated_at: iso.required(),
  status_url: Joi.string().required(),
  download_url: Joi.string().required().description('Answers the file once status is completed (409 export_not_ready before).'),
}).label('FindingExport');
