import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';
import { FINDING_STATUSES } from '../../core/domain/finding-status.ts';
import { SEVERITIES } from '../../core/domain/severity.ts';
import { parseSearch } from '../../core/findings/finding-search.ts';

const iso = Joi.string().isoDate();
const severity = Joi.string().valid(...SEVERITIES);
const status = Joi.string().valid(...FINDING_STATUSES);
const assetId = recordId('ast', 'an asset id');
const httpUrl = Joi.string().uri({ scheme: ['http', 'https'] }).max(2048);

export const findingIdParams = Joi.object({
  id: recordId('fnd', 'a finding id').required(),
});

/** `severity` as a comma-separated string (query) or an array (export filters); yields a de-duplicated array. */
const severityList = Joi.alternatives(
  Joi.array().items(severity).min(1),
  Joi.string().custom((value: string, helpers) => {
    const parts = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    if (!parts.length || parts.some((p) => !(SEVERITIES as readonly string[]).includes(p))) return helpers.message({ custom: `{#label} must be a comma-separated list of ${SEVERITIES.join(', ')}` });
    return [...new Set(parts)];
  }),
).description(`Comma-separated list of ${SEVERITIES.join(', ')}.`);

/** The filter keys of GET /api/findings; POST /api/findings/export reuses them for `filters`. */
export const findingFilterKeys = {
  severity: severityList,
  status: status.description('One finding status.'),
  asset_id: assetId,
  scan_id: Joi.string().max(40),
  cvss_min: Joi.number().min(0).max(10).description('Lowest CVSS score, inclusive.'),
  cvss_max: Joi.number().min(0).max(10).description('Highest CVSS score, inclusive.'),
  search: Joi.string().trim().min(1).max(200).custom((value: string, helpers) => {
    try {
      parseSearch(value);
    } catch (err) {
      return helpers.message({ custom: `{#label}: ${(err as Error).message}` });
    }
    return value;
  }).description('Words in the title or description, all required, case-insensitive: `word`, `word*` (prefix), `"a phrase"`; every word 3 to 84 letters, digits or _ (docs/api.md, "Finding search").'),
  kev: Joi.boolean().description('true: findings with a CVE in the KEV catalog in force; false: findings with none (those without CVE included). docs/feeds.md, "On findings".'),
  epss_min: Joi.number().min(0).max(1).description('Findings whose highest EPSS score in force is at least this, 0 to 1 (findings without a score are left out).'),
};

export const findingSortKeys = {
  sort_by: Joi.string().valid('severity', 'cvss', 'discovered_at', 'title', 'epss').default('discovered_at').description('`severity` sorts by rank (critical > high > medium > low > info); `epss` by the finding\'s highest EPSS score in force, a finding without a score ranking below every score.'),
  sort_order: Joi.string().valid('asc', 'desc').default('desc'),
};

export const findingListQuery = Joi.object({ ...findingFilterKeys, ...findingSortKeys, ...pageQuery }).label('FindingListQuery');

export const evidenceSchema = Joi.object({
  url: Joi.string().max(2048).allow(''),
  method: Joi.string().max(16).allow(''),
  parameter: Joi.string().max(256).allow(''),
  payload: Joi.string().max(8192).allow(''),
  response_indicator: Joi.string().max(2048).allow(''),
}).label('Evidence');

export const createFindingPayload = Joi.object({
  asset_id: assetId.required(),
  scan_id: recordId('scn', 'a scan id').allow(null).description('The scan that found it: a scan of this asset (404 not_found otherwise); null or absent for imported findings.'),
  title: Joi.string().trim().min(1).max(300).required(),
  description: Joi.string().max(20000).allow('').default(''),
  remediation: Joi.string().max(20000).allow('').default(''),
  cvss_vector: Joi.string().max(200).required().description('CVSS v3.1 vector, e.g. CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H; the score and severity are computed from it.'),
  severity: severity.description('Optional; if given it must agree with the score (400 severity_mismatch).'),
  status: status.default('open'),
  evidence: evidenceSchema,
  references: Joi.array().items(httpUrl).max(50),
  tags: Joi.array().items(Joi.string().trim().min(1).max(64)).max(50),
  discovered_at: iso.description('Default now; a time in the future is taken as now.'),
}).label('CreateFinding');

export function bulkFindingsPayload(maxItems: number): Joi.ObjectSchema {
  return Joi.object({ findings: Joi.array().items(createFindingPayload).min(1).max(maxItems).required() }).label('CreateFindings');
}

export const statusPayload = Joi.object({
  status: status.required(),
  note: Joi.string().trim().min(1).max(10000).description('Appended to the finding\'s notes.'),
}).label('FindingStatusChange');

const assetRef = Joi.object({ id: Joi.string().required(), name: Joi.string().required(), type: Joi.string().required() }).label('FindingAsset');

export const findingListItemSchema = Joi.object({
  id: Joi.string().required(),
  title: Joi.string().required(),
  severity: severity.required(),
  cvss: Joi.number().min(0).max(10).required(),
  status: status.required(),
  asset: assetRef.required(),
  scan_id: Joi.string().allow(null).required(),
  description: Joi.string().allow('').required(),
  remediation: Joi.string().allow('').required(),
  references: Joi.array().items(Joi.string()).required(),
  discovered_at: iso.required(),
  updated_at: iso.required(),
}).label('FindingListItem');

const day = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/);

const kevSchema = Joi.object({
  cve: Joi.string().required().description('The CVE of the entry shown: of the finding\'s CVEs in the catalog, the one with the earliest due date.'),
  in_catalog: Joi.boolean().valid(true).required(),
  date_added: day.required(),
  due_date: day.required().description('CISA\'s remediation due date for federal agencies (YYYY-MM-DD).'),
  known_ransomware: Joi.boolean().required().description('The catalog says the CVE is known to be used in ransomware campaigns.'),
  vendor_project: Joi.string().allow('').required(),
  product: Joi.string().allow('').required(),
}).label('FindingKev');

const epssSchema = Joi.object({
  cve: Joi.string().required().description('The finding\'s CVE with the highest score.'),
  score: Joi.number().min(0).max(1).required(),
  percentile: Joi.number().min(0).max(1).required(),
  feed_date: iso.required().description('The EPSS feed\'s score_date.'),
}).label('FindingEpss');

/** KEV and EPSS of the finding's CVEs, read from the feeds in force when the finding is read (docs/feeds.md, "On findings"). */
const enrichmentKeys = {
  kev: kevSchema.allow(null).required().description('null unless a CVE of the finding is in the KEV catalog in force.'),
  epss: epssSchema.allow(null).required().description('null unless a CVE of the finding has an EPSS score in force.'),
};

/** GET /api/findings items: the list view with the feeds' enrichment. */
export const enrichedFindingListItemSchema = findingListItemSchema.keys(enrichmentKeys).label('EnrichedFindingListItem');

export const findingRecordSchema = findingListItemSchema
  .keys({
    // Empty for an imported finding whose tool gave no CVSS vector (docs/importers.md).
    cvss_vector: Joi.string().allow('').required(),
    // Scanner and imported findings carry details beyond the spec's keys (pages, request, technique, file…): core/domain/evidence.ts.
    evidence: evidenceSchema.unknown(true).label('FindingEvidence').description('The spec\'s keys, plus what the check or importer that found it recorded (e.g. `pages`, `request`, `technique`, `file`).').required(),
    tags: Joi.array().items(Joi.string()).required(),
  })
  .label('FindingRecord');

const fingerprintKeySchema = Joi.object({
  kind: Joi.string().valid('rule', 'cve', 'cwe_location').required(),
  value: Joi.string().allow('').required(),
}).label('FingerprintKey');

const findingSourceSchema = Joi.object({
  tool: Joi.string().allow('').required(),
  rule_id: Joi.string().allow('').required().description('The tool\'s own id: check, template, rule or alert.'),
  location: Joi.string().allow('').required(),
  first_origin: Joi.string().required().description('`scan:<id>`, `import:<start time>`, or `import` for findings imported before sources were kept.'),
  last_origin: Joi.string().required(),
  first_seen: iso.required(),
  last_seen: iso.required(),
  matched_on: Joi.array().items(fingerprintKeySchema).allow(null).required().description('The keys it shared with the finding when it joined; null for the source that created it.'),
}).label('FindingSource');

export const findingDetailSchema = findingRecordSchema
  .keys({
    notes: Joi.array()
      .items(Joi.object({ id: Joi.string().required(), author: Joi.string().required(), text: Joi.string().required(), created_at: iso.required() }).label('FindingNote'))
      .required(),
    status_history: Joi.array()
      .items(Joi.object({
        old_status: status.allow(null).required(),
        new_status: status.required(),
        changed_by: Joi.string().allow(null).required(),
        changed_at: iso.required(),
        note_id: Joi.string().allow(null).required(),
      }).label('FindingStatusChangeRecord'))
      .required(),
    sources: Joi.array().items(findingSourceSchema).required()
      .description('Each tool rule that reported the finding (a scan check, an imported tool\'s rule or template), oldest first: docs/finding-fingerprints.md.'),
    dedup: Joi.object({
      keys: Joi.array().items(fingerprintKeySchema).required().description('The fingerprint: every key the sources brought, strongest kind first (rule, cve, cwe_location).'),
      matched: Joi.array().items(fingerprintKeySchema).required().description('The keys that joined a later source to the finding; empty when a single rule reported it.'),
      merges: Joi.array().items(Joi.object({
        finding_id: Joi.string().required(),
        merged_by: Joi.string().required(),
        merged_at: iso.required(),
        split_by: Joi.string().allow(null).required(),
        split_at: iso.allow(null).required(),
      }).label('FindingMerge')).required().description('Findings merged into this one by hand (POST /api/findings/{id}/merge), newest first; split_at once undone.'),
    }).label('FindingDedup').required().description('Why the sources are one finding.'),
    ...enrichmentKeys,
  })
  .label('Finding');

export const statusResultSchema = Joi.object({
  id: Joi.string().required(),
  status: status.required(),
  updated_at: iso.required(),
  updated_by: Joi.string().required(),
}).label('FindingStatusResult');

const bySeverity = Joi.object(Object.fromEntries(SEVERITIES.map((s) => [s, Joi.number().integer().min(0).required()])));
const byStatus = Joi.object(Object.fromEntries(FINDING_STATUSES.map((s) => [s, Joi.number().integer().min(0).required()])));

export const statsSchema = Joi.object({
  total: Joi.number().integer().min(0).required(),
  by_severity: bySeverity.required(),
  by_status: byStatus.required(),
  trend: Joi.object({
    last_30_days: Joi.object({
      new: Joi.number().integer().min(0).required(),
      resolved: Joi.number().integer().min(0).required(),
      net_change: Joi.number().integer().required(),
      daily: Joi.array()
        .items(Joi.object({ date: Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/).required(), new: Joi.number().integer().min(0).required(), resolved: Joi.number().integer().min(0).required() }).label('FindingTrendDay'))
        .length(30)
        .required()
        .description('The 30 UTC calendar days ending today (today so far included), oldest first: findings created, and distinct findings resolved, that day. Calendar days, so their sums can differ slightly from the rolling 30-day totals.'),
    }).required(),
  }).required(),
}).label('FindingStats');

const findingIdList = Joi.array().items(recordId('fnd', 'a finding id')).unique();

export const mergePayload = Joi.object({
  finding_ids: findingIdList.min(1).max(100).required().description('Findings of the same asset to fold into the one in the path.'),
}).label('FindingMergeRequest');

export const splitPayload = Joi.object({
  finding_ids: findingIdList.min(1).max(100).description('Which merged findings to restore; all of them when left out.'),
}).allow(null).label('FindingSplitRequest');

export const mergeResultSchema = Joi.object({ id: Joi.string().required(), merged_ids: Joi.array().items(Joi.string()).required() }).label('FindingMergeResult');
export const splitResultSchema = Joi.object({ id: Joi.string().required(), restored_ids: Joi.array().items(Joi.string()).required() }).label('FindingSplitResult');
