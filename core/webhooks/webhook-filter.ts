import type { PlatformEvent } from '../plugin-api/index.ts';
import { SEVERITY_RANK, type Severity } from '../domain/severity.ts';

/** `filters` of a webhook (all optional). */
export interface WebhookFilters {
  /** Events carrying a `severity` below this are skipped; events without one pass. */
  min_severity?: Severity;
  /** Only events about an asset holding at least one of these tags (events without an asset are skipped). */
  asset_tags?: string[];
  /** Event kinds or `<category>.*` patterns removed from what `events` selects. */
  exclude?: string[];
}

/** `finding.new` matches `finding.new`, `finding.*` and `*`. */
export function kindMatches(pattern: string, kind: string): boolean {
  if (pattern === '*' || pattern === kind) return true;
  return pattern.endsWith('.*') && kind.startsWith(pattern.slice(0, -1));
}

/** The severity an event is about: `data.severity` (finding events), if it is a known level. */
export function eventSeverity(event: PlatformEvent): Severity | null {
  const s = event.data.severity;
  return typeof s === 'string' && s in SEVERITY_RANK ? (s as Severity) : null;
}

/**
 * Whether a webhook wants an event, apart from asset tags (which need a lookup; see
 * `needsAssetTags`). Subscriptions are explicit: `events` lists kinds or patterns.
 */
export function matchesWithoutTags(events: readonly string[], filters: WebhookFilters, event: PlatformEvent): boolean {
  if (!events.some((p) => kindMatches(p, event.kind))) return false;
  if (filters.exclude?.some((p) => kindMatches(p, event.kind))) return false;
  if (filters.min_severity) {
    const severity = eventSeverity(event);
    if (severity && SEVERITY_RANK[severity] < SEVERITY_RANK[filters.min_severity]) return false;
  }
  return true;
}

export function needsAssetTags(filters: WebhookFilters): boolean {
  return Array.isArray(filters.asset_tags) && filters.asset_tags.length > 0;
}

/** The asset-tag rule, given the tags of the event's asset (null when it has no asset). */
export function matchesAssetTags(filters: WebhookFilters, assetTags: readonly string[] | null): boolean {
  if (!needsAssetTags(filters)) return true;
  if (!assetTags) return false;
  return filters.asset_tags!.some((t) => assetTags.includes(t));
}

/** The asset an event is about: the outbox column, else `data.asset.id` / `data.asset_id`. */
export function eventAssetId(event: PlatformEvent): string | null {
  if (event.assetId) return event.assetId;
  const asset = event.data.asset as { id?: unknown } | undefined;
  if (asset && typeof asset.id === 'string') return asset.id;
  return typeof event.data.asset_id === 'string' ? event.data.asset_id : null;
}
