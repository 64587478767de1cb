import type { ScanType } from '../plugin-api/index.ts';
import type { AssetType } from '../domain/asset-type.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { QUICK_SEVERITIES, SCAN_TYPE_SERVED_BY, SUPERSEDES } from './scan-types.ts';

/** One check a scan will run, as data: what crosses into the worker pool. */
export interface PlannedCheck {
  checkId: string;
  plugin: string;
  moduleUrl: string;
  category: string;
  /** Admin-set plugin options (scan options are merged over them at run time). */
  pluginOptions: Record<string, unknown>;
  /** The check hands discovered services to later checks. */
  produces?: boolean;
}

/**
 * The scanner registry's answer to "which checks serve this scan type for this asset
 * type": checks of scanners serving the type (see SCAN_TYPE_SERVED_BY) whose asset
 * types include the asset's, then `quick` keeps critical/high checks and `custom` the
 * checks of the given categories. Order: plugin name, then the plugin's own order.
 * Checks that serve the asset type only through discovered services
 * (`serviceAssetTypes`) are planned only next to a check producing services. Active
 * checks (attack payloads) are planned only when the scan asked for them (`active`).
 */
export function planChecks(registry: PluginRegistry, scanType: ScanType, assetType: AssetType, categories: readonly string[] = [], opts: { active?: boolean } = {}): PlannedCheck[] {
  const served = SCAN_TYPE_SERVED_BY[scanType];
  const planned: PlannedCheck[] = [];
  const throughServices: PlannedCheck[] = [];
  for (const entry of registry.scanners()) {
    const scanner = entry.plugin;
    if (served !== 'all' && !scanner.scanTypes.some((t) => served.includes(t))) continue;
    for (const check of scanner.checks) {
      const assetTypes = check.assetTypes ?? scanner.assetTypes;
      const direct = assetTypes.includes(assetType);
      const viaServices = !direct && check.consumes?.includes('services') === true && (check.serviceAssetTypes ?? []).includes(assetType);
      if (!direct && !viaServices) continue;
      if (check.active === true && opts.active !== true) continue;
      if (scanType === 'quick' && !QUICK_SEVERITIES.includes(check.maxSeverity)) continue;
      if (scanType === 'custom' && !categories.includes(check.category)) continue;
      (viaServices ? throughServices : planned).push({ checkId: check.id, plugin: scanner.name, moduleUrl: entry.moduleUrl, category: check.category, pluginOptions: entry.options, produces: check.produces?.includes('services') === true });
    }
  }
  const replaced = new Set(planned.map((p) => SUPERSEDES[p.checkId]).filter(Boolean));
  const kept = planned.filter((p) => !replaced.has(p.checkId));
  // Checks that reach this asset type only through discovered services need a producer in the plan.
  return kept.some((p) => p.produces) ? [...kept, ...throughServices] : kept;
}

/** Every check category the loaded scanners offer (for `custom` validation and docs). */
export function knownCategories(registry: PluginRegistry): string[] {
  return [...new Set(registry.scanners().flatMap((s) => s.plugin.checks.map((c) => c.category)))].sort();
}
