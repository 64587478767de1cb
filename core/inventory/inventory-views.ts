import { toIsoRequired } from '../time.ts';
import { licensesOf, inventoryRepository, type ComponentRow, type SbomRow } from './inventory-repository.ts';

/** A component as the API shows it. */
export interface ComponentView {
  id: string;
  asset_id: string;
  sbom_id: string;
  name: string;
  group: string | null;
  version: string | null;
  purl: string | null;
  package: string | null;
  type: string | null;
  licenses: string[];
  direct: boolean;
  /** Findings that concern it (component-findings.ts); null where not counted (neighbour lists). */
  finding_count: number | null;
}

export interface SbomView {
  id: string;
  asset_id: string;
  format: string;
  spec_version: string;
  status: string;
  subject: { name: string; version: string | null } | null;
  tool: string | null;
  component_count: number;
  dependency_count: number;
  changes: Record<string, number>;
  uploaded_by: string | null;
  created_at: string;
}

export function componentView(row: ComponentRow, findingCount: number | null): ComponentView {
  return {
    id: row.id,
    asset_id: row.asset_id,
    sbom_id: row.sbom_id,
    name: row.name,
    group: row.group_name,
    version: row.version,
    purl: row.purl,
    package: row.purl_base,
    type: row.type,
    licenses: licensesOf(row),
    direct: Boolean(row.direct),
    finding_count: findingCount,
  };
}

export function sbomView(row: SbomRow): SbomView {
  return {
    id: row.id,
    asset_id: row.asset_id,
    format: row.format,
    spec_version: row.spec_version,
    status: row.status,
    subject: row.subject_name ? { name: row.subject_name, version: row.subject_version } : null,
    tool: row.tool,
    component_count: Number(row.component_count),
    dependency_count: Number(row.dependency_count),
    changes: inventoryRepository.summaryOf(row),
    uploaded_by: row.uploaded_by,
    created_at: toIsoRequired(Number(row.created_at)),
  };
}
