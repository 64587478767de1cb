import { ImportFileError } from '../imports/import-file-error.ts';
import { jsonPath, type PathPart } from '../imports/json-path.ts';

export type SbomFormat = 'cyclonedx' | 'spdx';

/** One component (CycloneDX) or package (SPDX) as the inventory records it. */
export interface SbomComponent {
  /** bom-ref or SPDXID; `#<index>` for a CycloneDX component without a bom-ref. */
  ref: string;
  name: string;
  group: string | null;
  version: string | null;
  purl: string | null;
  purlBase: string | null;
  type: string | null;
  licenses: string[];
}

/** A dependency edge by document references, with where it was written (for errors). */
export interface SbomEdge {
  parent: string;
  child: string;
  where: readonly PathPart[];
}

export interface ParsedSbom {
  format: SbomFormat;
  specVersion: string;
  subject: { name: string; version: string | null } | null;
  tool: string | null;
  components: SbomComponent[];
  /** Edges between components (edges from the subject are in `direct`). */
  edges: Array<{ parent: number; child: number }>;
  /** Indexes of the components the subject depends on directly. */
  direct: Set<number>;
}

/** Longest values kept (the columns' sizes); a longer one is refused, naming where. */
export const FIELD_LIMITS = { name: 512, group: 512, version: 256, purl: 2048, license: 256, licenses: 32 };

export const fail = (message: string, path: readonly PathPart[]): never => {
  throw new ImportFileError(message, jsonPath(path));
};

/** A string field: absent (null) or a string no longer than `max`; anything else is refused. */
export function optionalString(value: unknown, path: readonly PathPart[], max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return fail('must be a string', path);
  if (value.length > max) return fail(`is longer than ${max} characters`, path);
  return value;
}

export function requiredString(value: unknown, path: readonly PathPart[], max: number): string {
  const s = optionalString(value, path, max);
  if (s === null || s.length === 0) return fail('is required (a non-empty string)', path);
  return s;
}

export function objectAt(value: unknown, path: readonly PathPart[]): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('must be an object', path);
  return value as Record<string, unknown>;
}

export function arrayAt(value: unknown, path: readonly PathPart[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail('must be an array', path);
  return value;
}
