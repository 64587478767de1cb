import type { Config } from './config-schema.ts';

/** A protective setting that is turned off, and what that allows. */
export interface SafetyWarning {
  key: string;
  /** What the setting is now, as an admin would write it. */
  value: string;
  risk: string;
}

/**
 * The safety switches that are off in `config`. Each is on by default; turning one off
 * is sometimes right (a lab, a private network, the trial profile), so start-up says so
 * once per switch instead of refusing.
 */
export function safetySwitchesOff(config: Config): SafetyWarning[] {
  const off: SafetyWarning[] = [];
  const add = (key: string, value: unknown, risk: string) => off.push({ key, value: JSON.stringify(value), risk });
  if (!config.scans.denySelf) add('scans.denySelf', false, 'scans may target this machine itself (loopback and its own addresses)');
  if (!config.scans.requireVerifiedAsset) add('scans.requireVerifiedAsset', false, 'assets are scanned without proof of ownership');
  if (!config.scans.denyNetworks.length) add('scans.denyNetworks', [], 'scans may reach cloud metadata and link-local addresses');
  if (!config.verification.denyNetworks.length) add('verification.denyNetworks', [], 'ownership checks may fetch from link-local addresses');
  if (!config.outbound.requireHttps) add('outbound.requireHttps', false, 'webhooks, scan callbacks and actions may send over plain HTTP');
  if (config.outbound.allowPrivateCidrs.length) {
    add('outbound.allowPrivateCidrs', config.outbound.allowPrivateCidrs, `webhooks, callbacks, SIEM and actions may reach ${config.outbound.allowPrivateCidrs.join(', ')}`);
  }
  if (!config.rateLimit.enabled) add('rateLimit.enabled', false, 'requests are not rate limited');
  else if (!config.rateLimit.endpointLimits) add('rateLimit.endpointLimits', false, 'logins, scan creation and other costly endpoints have no limits of their own');
  return off;
}
