import Joi from 'joi';
import { recordId, severityCountsSchema } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';
import { ASSET_STATUSES } from '../../core/assets/asset-views.ts';
import { ASSET_TYPES } from '../../core/domain/asset-type.ts';
import { MAX_TAG_LENGTH, MAX_TAGS, TAG_PATTERN } from '../../core/assets/asset-input.ts';
import { VERIFICATION_METHODS } from '../../core/assets/verification-methods.ts';

const iso = Joi.string().isoDate();
const severityCounts = severityCountsSchema('FindingSummary');

export const assetIdParams = Joi.object({
  id: recordId('ast', 'an asset id').required(),
});

export const tagList = Joi.array()
  .items(Joi.string().trim().min(1).max(MAX_TAG_LENGTH).pattern(TAG_PATTERN).messages({ 'string.pattern.base': '{#label} must not contain commas or control characters' }))
  .max(MAX_TAGS)
  .description(`Up to ${MAX_TAGS} tags of 1-${MAX_TAG_LENGTH} characters, no commas; duplicates are dropped.`);

export const metadataObject = Joi.object().unknown(true).description('Free key-value pairs (at most 16 KiB of JSON); searched by `search`.');

export const assetListQuery = Joi.object({
  type: Joi.string().valid(...ASSET_TYPES),
  tag: Joi.string().trim().min(1).max(MAX_TAG_LENGTH).description('Only assets carrying this tag (exact match).'),
  status: Joi.string().valid(...ASSET_STATUSES),
  search: Joi.string().trim().min(1).max(200).description('Case-insensitive substring of the name or of any metadata key or value.'),
  sort_by: Joi.string().valid('name', 'type', 'created_at', 'risk_score').default('created_at'),
  sort_order: Joi.string().valid('asc', 'desc').default('desc'),
  ...pageQuery,
}).label('AssetListQuery');

export const createAssetPayload = Joi.object({
  name: Joi.string().trim().min(1).max(2100).required().description('Domain, IP address, http(s) URL or CIDR range; normalised (see notes).'),
  type: Joi.string().valid(...ASSET_TYPES).required(),
  tags: tagList,
  metadata: metadataObject,
}).label('CreateAsset');

export const updateAssetPayload = Joi.object({
  tags: tagList.description('Replaces the tags.'),
  metadata: metadataObject.description('Replaces the metadata.'),
  status: Joi.string().valid('active', 'inactive').description('`inactive` takes the asset out of service; `active` requires a verified asset.'),
})
  .min(1)
  .label('UpdateAsset');

export const assetListItemSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().valid(...ASSET_TYPES).required(),
  status: Joi.string().valid(...ASSET_STATUSES).required(),
  verified: Joi.boolean().required(),
  risk_score: Joi.number().integer().min(0).max(100).required(),
  tags: Joi.array().items(Joi.string()).required(),
  last_scan: iso.allow(null).required().description('Time of the last scan; null until the asset is scanned.'),
  created_at: iso.required(),
}).label('AssetListItem');

export const assetDetailSchema = assetListItemSchema
  .keys({
    metadata: Joi.object().unknown(true).required(),
    finding_summary: severityCounts.required().description('Unresolved (open or confirmed) findings by severity.'),
    updated_at: iso.required(),
  })
  .label('Asset');

export const createdAssetSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().required(),
  status: Joi.string().valid(...ASSET_STATUSES).required(),
  verified: Joi.boolean().required(),
  tags: Joi.array().items(Joi.string()).required(),
  created_at: iso.required(),
}).label('CreatedAsset');

export const importResultSchema = Joi.object({
  imported: Joi.number().integer().min(0).required(),
  failed: Joi.number().integer().min(0).required(),
  errors: Joi.array()
    .items(Joi.object({
      row: Joi.number().integer().min(1).required().description('1-based position among the data rows (CSV header not counted) or in the assets array.'),
      // The row's name cell as sent, which may be empty (null when it is not a string).
      name: Joi.string().allow('', null).required(),
      code: Joi.string().required(),
      message: Joi.string().required(),
    }).label('ImportError'))
    .required(),
  errors_truncated: Joi.boolean().required().description('True when more than 1000 rows failed: `failed` counts them all, `errors` lists the first 1000.'),
}).label('ImportResult');

const method = Joi.string().valid(...VERIFICATION_METHODS);

export const verifyPayload = Joi.object({ method: method.description('Default: dns_txt for a domain, meta_tag for a URL, file for an IP.') }).allow(null).label('VerifyRequest');
export const checkPayload = Joi.object({ method: method.description('Default: the method of the last POST /verify.') }).allow(null).label('VerificationCheckRequest');

export const issuedVerificationSchema = Joi.object({
  asset_id: Joi.string().required(),
  verification_method: method.required(),
  verification_token: Joi.string().required(),
  instructions: Joi.string().required(),
  methods: Joi.array()
    .items(Joi.object({ method: method.required(), target: Joi.string().required(), instructions: Joi.string().required() }).label('VerificationMethod'))
    .required(),
}).label('IssuedVerification');

export const verificationResultSchema = Joi.object({
  asset_id: Joi.string().required(),
  method: method.required(),
  verified: Joi.boolean().required(),
  status: Joi.string().valid(...ASSET_STATUSES).required(),
  code: Joi.string().allow(null).required().description('Why it failed: record_not_found, token_mismatch, http_error, unreachable, destination_refused, dns_error; null on success.'),
  message: Joi.string().required(),
  found: Joi.array().items(Joi.string()).required().description('What was found instead: TXT values; of a page only its HTTP status or values shaped like a verification token (rv-…), never other content.'),
  checked: Joi.string().required().description('The DNS name or URL that was checked.'),
}).label('VerificationResult');
