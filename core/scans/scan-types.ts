import type { ScanType } from '../plugin-api/index.ts';
import type { Severity } from '../domain/severity.ts';

/** Every scan type of both spec variants (A: full quick web_app network api ssl; B: full quick custom api_discovery ssl dns port). */
export const SCAN_TYPES: readonly ScanType[] = ['full', 'quick', 'custom', 'web_app', 'network', 'api', 'ssl', 'api_discovery', 'dns', 'port'];

/**
 * THE mapping from a requested scan type to the checks that serve it. One table for
 * both variants; scanners declare the specific types they serve (`scanTypes`).
 * - `all`: every check of every scanner that applies to the asset type (`full`, and
 *   `quick`/`custom` before their filters).
 * - a list: checks of scanners declaring any of these scan types. Variant A's `api` and
 *   variant B's `api_discovery` are the same work; variant A's `network` covers the
 *   `network` scanner and port scanning.
 * Extend here when a scanner introduces a new type.
 */
export const SCAN_TYPE_SERVED_BY: Record<ScanType, 'all' | readonly ScanType[]> = {
  full: 'all',
  quick: 'all',
  custom: 'all',
  web_app: ['web_app'],
  network: ['network', 'port'],
  api: ['api', 'api_discovery'],
  api_discovery: ['api_discovery', 'api'],
  ssl: ['ssl'],
  dns: ['dns'],
  port: ['port'],
};

/**
 * When both checks are planned, the key's check replaces the value's: the same work done
 * better. `network:services` discovers live hosts first, then runs the port scan on each,
 * so a bare port scan of every address of the network would repeat its findings.
 */
export const SUPERSEDES: Readonly<Record<string, string>> = { 'network:services': 'port:tcp-services' };

/** `quick` keeps checks whose most severe finding can be one of these. */
export const QUICK_SEVERITIES: readonly Severity[] = ['critical', 'high'];

/** Phase label shown in `current_phase` for checks of a scanner (default: the plugin name). */
export function phaseOf(plugin: string, category: string): string {
  return `${plugin}:${category}`;
}
