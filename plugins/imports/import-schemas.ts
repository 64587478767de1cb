import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { IMPORT_FORMATS } from '../../core/imports/import-result.ts';

/** `<tool target>=<asset id>`: the target as the file names it (URL, host, IP, repository), then the asset. */
const mapEntry = Joi.string()
  .max(2100)
  .pattern(/^.+=ast_[0-9A-HJKMNP-TV-Z]{26}$/)
  .messages({ 'string.pattern.base': '{#label} must be <target>=<asset id>, e.g. https://app.example.com=ast_01J…' });

export const importQuery = Joi.object({
  format: Joi.string().valid(...IMPORT_FORMATS).description('The tool that wrote the file: `sarif` (SARIF 2.1.0: Semgrep, CodeQL, Trivy, Grype, flawfinder…), `nuclei` (JSON Lines, or the `-json-export` array), `zap` (ZAP\'s Traditional JSON report), `nmap` (`nmap -oX` XML), `bandit` (`bandit -f json`) or `gitleaks` (`gitleaks --report-format json`; secrets are never stored). Omitted: told from the file (the answer\'s `format` and `format_detected`); a file Rampart cannot recognise is a 400 import_format_unknown.'),
  asset_id: recordId('ast', 'an asset id').description('The asset of every result not mapped otherwise.'),
  map: Joi.array().items(mapEntry).single().max(1000).description('Repeatable `<target>=<asset id>`: results whose target (nuclei host or matched-at, ZAP site, SARIF repository URI, or their host names; case-insensitive) is named go to that asset.'),
  map_by_name: Joi.boolean().default(false).description('Also send a result to the tenant\'s URL, domain or IP asset whose name is its target.'),
  scan_id: recordId('scn', 'a scan id').description('Link the findings to this scan of the tenant; every result must then belong to the scan\'s asset.'),
}).label('FindingImportQuery');

export const importSummarySchema = Joi.object({
  format: Joi.string().valid(...IMPORT_FORMATS).required().description('The format read: the one asked for, or the one told from the file.'),
  format_detected: Joi.boolean().required().description('True when the query gave no format and `format` was told from the file.'),
  results: Joi.number().integer().min(0).required().description('Results in the file, skipped ones included.'),
  created: Joi.number().integer().min(0).required().description('New findings (each emitted finding.new).'),
  seen_again: Joi.number().integer().min(0).required().description('Results matching an existing finding (same asset, check and location): its last_seen and evidence were updated, nothing was created.'),
  reopened: Joi.number().integer().min(0).required().description('Resolved findings seen again after their resolution, reopened (finding.status_changed).'),
  duplicates: Joi.number().integer().min(0).required().description('Results repeating an earlier result of the same file.'),
  skipped: Joi.number().integer().min(0).required().description('Results that are not problems (SARIF kind pass or notApplicable, baselineState absent).'),
  skipped_reasons: Joi.object().pattern(Joi.string(), Joi.number().integer().min(1)).required(),
  assets: Joi.array().items(Joi.object({ id: Joi.string().required(), name: Joi.string().required(), results: Joi.number().integer().min(0).required() }).label('FindingImportAsset')).required(),
}).label('FindingImportSummary');
