import { createHash } from 'node:crypto';
import { InputError } from '../errors.ts';
import type { NewAsset } from './asset-repository.ts';
import { normaliseAssetName, type NetworkLimits } from './asset-names.ts';
import { ASSET_TYPES, type AssetType } from '../domain/asset-type.ts';

export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 64;
export const MAX_METADATA_BYTES = 16 * 1024;
/** Tags may not contain commas (the CSV import separates tags with them) or control characters. */
export const TAG_PATTERN = /^[^\x00-\x1f\x7f,]+$/;

export interface AssetInput {
  name: unknown;
  type: unknown;
  tags?: unknown;
  metadata?: unknown;
}

/** Trimmed, de-duplicated (first occurrence kept), validated tags. */
export function normaliseTags(tags: unknown): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw new InputError('tags must be an array of strings.', 'invalid_tags');
  const out: string[] = [];
  for (const tag of tags) {
    if (typeof tag !== 'string') throw new InputError('tags must be an array of strings.', 'invalid_tags');
    const t = tag.trim();
    if (!t || t.length > MAX_TAG_LENGTH || !TAG_PATTERN.test(t)) {
      throw new InputError(`Tag "${tag}" is invalid: 1-${MAX_TAG_LENGTH} characters, no commas or control characters.`, 'invalid_tags');
    }
    if (!out.includes(t)) out.push(t);
  }
  if (out.length > MAX_TAGS) throw new InputError(`At most ${MAX_TAGS} tags per asset.`, 'invalid_tags');
  return out;
}

export function normaliseMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw new InputError('metadata must be an object.', 'invalid_metadata');
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw new InputError(`metadata is limited to ${MAX_METADATA_BYTES} bytes of JSON.`, 'invalid_metadata');
  }
  return metadata as Record<string, unknown>;
}

/** Lower-cased name plus every metadata key and scalar value: what `search` matches. */
export function searchTextOf(name: string, metadata: Record<string, unknown>): string {
  const parts: string[] = [name];
  const walk = (value: unknown): void => {
    if (value === null || value === undefined) return;
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (!Array.isArray(value)) parts.push(k);
        walk(v);
      }
    } else parts.push(String(value));
  };
  walk(metadata);
  return parts.join('\n').toLowerCase();
}

/** Uniqueness key of an asset within its tenant. */
export function nameKeyOf(type: AssetType, name: string): string {
  return createHash('sha256').update(`${type}\0${name}`).digest('hex');
}

/**
 * Validates one asset (from the API or an import row) and builds the row to insert.
 * Throws InputError with a stable code (`invalid_type`, `invalid_domain`, …).
 */
export function prepareAsset(tenantId: string, id: string, input: AssetInput, limits: NetworkLimits, now: number): NewAsset {
  const type = typeof input.type === 'string' ? input.type.trim().toLowerCase() : input.type;
  if (typeof type !== 'string' || !(ASSET_TYPES as readonly string[]).includes(type)) {
    throw new InputError(`type must be one of ${ASSET_TYPES.join(', ')}.`, 'invalid_type');
  }
  if (typeof input.name !== 'string' || !input.name.trim()) throw new InputError('name is required.', 'invalid_name');
  const name = normaliseAssetName(type as AssetType, input.name, limits);
  const tags = normaliseTags(input.tags);
  const metadata = normaliseMetadata(input.metadata);
  return { id, tenantId, name, nameKey: nameKeyOf(type as AssetType, name), type: type as AssetType, tags, metadata, searchText: searchTextOf(name, metadata), now };
}
