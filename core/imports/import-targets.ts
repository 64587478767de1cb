import ipaddr from 'ipaddr.js';
import type { Queryable } from '../db/create-db.ts';
import { nameKeyOf } from '../assets/asset-input.ts';
import { normaliseDomain, normaliseIp, normaliseUrl } from '../assets/asset-names.ts';
import type { AssetType } from '../domain/asset-type.ts';
import { InputError, NotFoundError, ValidationError } from '../errors.ts';
import { hostOf } from './import-text.ts';
import { importRepository, type AssetRef } from './import-repository.ts';

/** How a caller says which asset a result belongs to (POST /api/findings/import query). */
export interface TargetMapping {
  /** Every result whose target is not otherwise mapped goes here. */
  assetId: string | null;
  /** Tool target (as the file names it, case-insensitive) → asset id. */
  map: Record<string, string>;
  /** Also match targets to the tenant's domain, IP and URL assets by name. */
  byName: boolean;
}

/** One distinct list of target names seen in the file, with where it first appeared. */
export interface SeenTargets {
  targets: string[];
  where: string;
}

export const targetsKey = (targets: readonly string[]): string => targets.join('\u0000');

const MAX_LISTED = 20;

/** The asset names a target could be registered under: as a URL, a domain or an IP. */
function candidateNames(target: string): Array<{ type: AssetType; name: string }> {
  const out: Array<{ type: AssetType; name: string }> = [];
  const attempt = (type: AssetType, f: (s: string) => string, value: string | null) => {
    if (!value) return;
    try {
      out.push({ type, name: f(value) });
    } catch {
      // Not a valid name of this type: try the next.
    }
  };
  if (/^https?:\/\//i.test(target)) attempt('url', normaliseUrl, target);
  const host = hostOf(target);
  if (host && ipaddr.isValid(host)) attempt('ip', normaliseIp, host);
  else attempt('domain', normaliseDomain, host);
  return out;
}

/**
 * Decides the asset of every distinct target list of a file, before anything is written:
 * first the caller's explicit mapping (any of the names), then, when asked, an asset of
 * the tenant with that name (URL, domain or IP), then the default asset. Every asset named
 * must be the tenant's (400 unknown_asset otherwise, like a finding's asset_id); a target
 * left without an asset is a 400 unmapped_target listing them; with a scan_id, every
 * result must belong to the scan's asset.
 */
export async function resolveTargets(db: Queryable, tenantId: string, mapping: TargetMapping, seen: Iterable<SeenTargets>, scanId: string | null): Promise<{ assetOf: Map<string, string>; assets: Map<string, AssetRef> }> {
  const explicit = new Map(Object.entries(mapping.map).map(([target, id]) => [target.trim().toLowerCase(), id]));
  const named = [...new Set([...(mapping.assetId ? [mapping.assetId] : []), ...explicit.values()])];
  const assets = await importRepository.assetsByIds(db, tenantId, named);
  const missing = named.filter((id) => !assets.has(id));
  if (missing.length) {
    const message = `Asset ${missing[0]} does not exist.`;
    const details = missing.map((id) => ({ field: id === mapping.assetId ? 'asset_id' : `map[${[...explicit].find(([, v]) => v === id)![0]}]`, message: `Asset ${id} does not exist.` }));
    throw new ValidationError(message, details, 'unknown_asset');
  }
  const list = [...seen];
  const byName = new Map<string, AssetRef>();
  if (mapping.byName) {
    const keysOf = new Map<string, string[]>();
    for (const t of new Set(list.flatMap((s) => s.targets))) keysOf.set(t, candidateNames(t).map((c) => nameKeyOf(c.type, c.name)));
    const found = await importRepository.assetsByNameKeys(db, tenantId, [...new Set([...keysOf.values()].flat())]);
    for (const [target, keys] of keysOf) {
      const hit = keys.map((k) => found.get(k)).find(Boolean);
      if (hit) byName.set(target, hit);
    }
    for (const a of found.values()) assets.set(a.id, a);
  }
  const assetOf = new Map<string, string>();
  const unmapped: SeenTargets[] = [];
  for (const s of list) {
    const id = s.targets.map((t) => explicit.get(t.toLowerCase())).find(Boolean) ?? s.targets.map((t) => byName.get(t)?.id).find(Boolean) ?? mapping.assetId;
    if (id) assetOf.set(targetsKey(s.targets), id);
    else unmapped.push(s);
  }
  if (unmapped.length) {
    const shown = unmapped.slice(0, MAX_LISTED);
    const describe = (s: SeenTargets) => (s.targets.length ? s.targets.join(' / ') : '(the file names no target)');
    throw new ValidationError(
      `${unmapped.length} target(s) of the file have no asset: map them (map=<target>=<asset id>), set map_by_name=true, or give asset_id for all the rest. First: ${describe(shown[0]!)} at ${shown[0]!.where}. Nothing was imported.`,
      shown.map((s) => ({ field: s.where, message: `No asset for ${describe(s)}.` })),
      'unmapped_target',
    );
  }
  if (scanId) {
    const scanAsset = await importRepository.scanAsset(db, tenantId, scanId);
    if (!scanAsset) throw new NotFoundError('Scan');
    const other = [...new Set(assetOf.values())].find((id) => id !== scanAsset);
    if (other) throw new InputError(`scan_id ${scanId} is a scan of asset ${scanAsset}, but results of the file belong to asset ${other}: import them without scan_id, or import each asset's results separately.`, 'scan_asset_mismatch');
  }
  return { assetOf, assets };
}
