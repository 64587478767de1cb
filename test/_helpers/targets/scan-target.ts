import type { ScanTarget } from '../../../core/plugin-api/index.ts';

/** The ScanTarget the engine builds for a URL asset. */
export function urlTarget(url: string): ScanTarget {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { assetId: 'ast_test', assetType: 'url', name: url, host, port: u.port ? Number(u.port) : undefined, url };
}

/** The ScanTarget of a domain asset (with a non-default port for loopback test servers). */
export function domainTarget(name: string, port?: number): ScanTarget {
  return { assetId: 'ast_test', assetType: 'domain', name, host: name, port };
}
