import { InputError, ValidationError } from '../errors.ts';
import type { NewFinding } from './finding-repository.ts';
import type { Evidence } from '../domain/evidence.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import { parseCvss31 } from './cvss.ts';
import type { Severity } from '../domain/severity.ts';

/** A finding to import, as validated by the route schema (snake_case API fields). */
export interface FindingInput {
  asset_id: string;
  scan_id?: string | null;
  title: string;
  description?: string;
  remediation?: string;
  cvss_vector: string;
  severity?: Severity;
  status?: FindingStatus;
  evidence?: Evidence;
  references?: string[];
  tags?: string[];
  discovered_at?: string;
}

/**
 * Scores the vector (strictly: a malformed vector is rejected) and checks that a
 * given severity agrees with the score; `field` prefixes error details in bulk imports.
 */
export function prepareFinding(input: FindingInput, base: { id: string; tenantId: string; actor: string; now: number }, field = ''): NewFinding {
  let cvss;
  try {
    cvss = parseCvss31(input.cvss_vector);
  } catch (err) {
    if (err instanceof InputError && field) throw new ValidationError(err.message, [{ field: `${field}cvss_vector`, message: err.message }], 'invalid_cvss_vector');
    throw err;
  }
  if (input.severity && input.severity !== cvss.severity) {
    const message = `severity "${input.severity}" disagrees with the CVSS score ${cvss.score.toFixed(1)} of the vector (${cvss.severity}); omit severity or correct it.`;
    if (field) throw new ValidationError(message, [{ field: `${field}severity`, message }], 'severity_mismatch');
    throw new InputError(message, 'severity_mismatch');
  }
  const discoveredAt = input.discovered_at ? Date.parse(input.discovered_at) : base.now;
  return {
    id: base.id,
    tenantId: base.tenantId,
    assetId: input.asset_id,
    scanId: input.scan_id ?? null,
    title: input.title,
    description: input.description ?? '',
    remediation: input.remediation ?? '',
    severity: cvss.severity,
    cvss: cvss.score,
    cvssVector: cvss.vector,
    status: input.status ?? 'open',
    evidence: input.evidence ?? {},
    references: [...new Set(input.references ?? [])],
    tags: [...new Set(input.tags ?? [])],
    createdBy: base.actor,
    discoveredAt: Math.min(discoveredAt, base.now),
    now: base.now,
  };
}
