import { forwarderRenderer } from './forwarder-renderer.ts';
import { truncateUtf8 } from './syslog-message.ts';
import type { ForwarderPlugin, PlatformEvent } from '../plugin-api/index.ts';

export interface FormatEventOptions {
  /** The plugin's admin options (default none). */
  options?: Record<string, unknown>;
  /** Default `rampart.test`. */
  hostname?: string;
  /** Syslog facility (default 16, local0: what an integration gets by default). */
  facility?: number;
  /** Default `192.0.2.10` (a documentation address). */
  sourceIp?: string | null;
  /** Default `0.0.0-test`. */
  productVersion?: string;
  /** The message limit the engine cuts at (default 8000 bytes, the shipped `siem.maxMessageBytes`). */
  maxMessageBytes?: number;
}

/**
 * The whole syslog line the engine would send for one event through a forwarder: the
 * forwarder's message inside core's RFC 5424 envelope, cut at the message limit. What a
 * forwarder author asserts on (or feeds to a strict parser) without a collector.
 */
export function formatEvent(plugin: ForwarderPlugin, event: PlatformEvent, o: FormatEventOptions = {}): string {
  const render = forwarderRenderer(plugin, o.options ?? {}, {
    hostname: o.hostname ?? 'rampart.test',
    facility: o.facility ?? 16,
    appName: 'rampart',
    productVersion: o.productVersion ?? '0.0.0-test',
    sourceIp: o.sourceIp === undefined ? '192.0.2.10' : o.sourceIp,
  });
  return truncateUtf8(render(event), o.maxMessageBytes ?? 8000);
}

/** A plausible event of a kind (default `finding.new`), with `data` and other fields overridable. */
export function sampleEvent(kind = 'finding.new', overrides: Partial<PlatformEvent> = {}): PlatformEvent {
  const data: Record<string, unknown> =
    kind === 'finding.new'
      ? { finding_id: 'fnd_sample', title: 'Weak TLS ciphers', severity: 'high', cvss: '7.5', asset: { id: 'ast_sample', name: '192.0.2.7' } }
      : kind === 'system.alert'
        ? { alert_type: 'sample', message: 'Sample alert' }
        : {};
  return { id: '1', kind, tenantId: 'ten_sample', assetId: kind === 'finding.new' ? 'ast_sample' : null, timestamp: '2024-05-01T12:00:00.000Z', data, ...overrides };
}
