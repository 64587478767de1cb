import Joi from 'joi';
import { recordId } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';

const iso = Joi.string().isoDate();
const nullableString = Joi.string().allow(null, '');

export const assetIdParams = Joi.object({ id: recordId('ast', 'an asset id').required() });
export const componentIdParams = Joi.object({ id: recordId('cmp', 'a component id').required() });

const changeCounts = Joi.object({
  added: Joi.number().integer().min(0).required(),
  removed: Joi.number().integer().min(0).required(),
  upgraded: Joi.number().integer().min(0).required(),
  downgraded: Joi.number().integer().min(0).required(),
  changed: Joi.number().integer().min(0).required(),
}).label('InventoryChangeCounts');

export const sbomSchema = Joi.object({
  id: Joi.string().required(),
  asset_id: Joi.string().required(),
  format: Joi.string().valid('cyclonedx', 'spdx').required(),
  spec_version: Joi.string().required().description('1.4, 1.5 or 1.6 (CycloneDX); 2.3 (SPDX).'),
  status: Joi.string().valid('current', 'superseded').required().description('`current`: the asset\'s inventory; `superseded`: replaced by a later upload (its components are gone, its changes stay).'),
  subject: Joi.object({ name: Joi.string().required(), version: nullableString.required() }).allow(null).required().description('What the SBOM describes: CycloneDX metadata.component, or the one package an SPDX document describes.'),
  tool: nullableString.required(),
  component_count: Joi.number().integer().min(0).required(),
  dependency_count: Joi.number().integer().min(0).required(),
  changes: changeCounts.required().description('What this upload changed against the inventory before it.'),
  uploaded_by: nullableString.required(),
  created_at: iso.required(),
}).label('Sbom');

export const uploadResultSchema = Joi.object({ sbom: sbomSchema.required(), changes: changeCounts.required() }).label('SbomUploadResult');

export const componentSchema = Joi.object({
  id: Joi.string().required(),
  asset_id: Joi.string().required(),
  sbom_id: Joi.string().required(),
  name: Joi.string().required(),
  group: nullableString.required(),
  version: nullableString.required(),
  purl: nullableString.required().description('The package URL as the SBOM wrote it.'),
  package: nullableString.required().description('The package URL without version, qualifiers or subpath (normalised): the package across assets and uploads.'),
  type: nullableString.required(),
  licenses: Joi.array().items(Joi.string()).required().description('SPDX ids, licence names or expressions.'),
  direct: Joi.boolean().required().description('The SBOM\'s subject depends on it directly.'),
  finding_count: Joi.number().integer().min(0).allow(null).required().description('Findings that concern it (docs/inventory.md#findings-and-components).'),
}).label('Component');

export const whereRunningSchema = componentSchema.keys({ asset_name: Joi.string().required() }).label('ComponentInUse');

const linkedFindingSchema = Joi.object({
  id: Joi.string().required(),
  title: Joi.string().required(),
  severity: Joi.string().required(),
  cvss: Joi.number().required(),
  status: Joi.string().required(),
  cve_ids: Joi.array().items(Joi.string()).required(),
  kev: Joi.boolean().allow(null).required().description('One of its CVEs is on CISA\'s Known Exploited Vulnerabilities list in force; null while no KEV catalog is loaded (docs/feeds.md).'),
  epss: Joi.number().min(0).max(1).allow(null).required().description('The highest FIRST EPSS probability of its CVEs; null when none has a score or no EPSS feed is loaded.'),
  updated_at: iso.required(),
}).label('ComponentFinding');

const neighbourSchema = componentSchema.label('ComponentNeighbour');

export const componentDetailSchema = whereRunningSchema.keys({
  findings: Joi.array().items(linkedFindingSchema).required(),
  depends_on: Joi.array().items(neighbourSchema).required().description('At most 500.'),
  depended_on_by: Joi.array().items(neighbourSchema).required().description('At most 500.'),
}).label('ComponentDetail');

export const changeSchema = Joi.object({
  id: Joi.number().integer().required(),
  sbom_id: Joi.string().required(),
  change: Joi.string().valid('added', 'removed', 'upgraded', 'downgraded', 'changed').required(),
  name: Joi.string().required(),
  package: nullableString.required(),
  old_version: nullableString.required(),
  new_version: nullableString.required(),
  created_at: iso.required(),
}).label('InventoryChange');

export const componentListQuery = Joi.object({
  search: Joi.string().trim().min(1).max(200).description('Case-insensitive substring of the component name.'),
  ...pageQuery,
}).label('ComponentListQuery');

export const whereRunningQuery = Joi.object({
  purl: Joi.string().trim().min(5).max(2048).description('A package URL: `pkg:npm/lodash` for every version, `pkg:npm/lodash@4.17.20` for one.'),
  name: Joi.string().trim().min(1).max(512).description('A component name (exact, case-insensitive), for components without a package URL.'),
  search: Joi.string().trim().min(1).max(200).description('Case-insensitive substring of the component name.'),
  ...pageQuery,
}).oxor('purl', 'name').label('WhereRunningQuery');

export const changeListQuery = Joi.object({
  sbom_id: recordId('sbm', 'an SBOM upload id').description('Only the changes this upload made.'),
  ...pageQuery,
}).label('InventoryChangeQuery');
