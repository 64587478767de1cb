import type { Config } from '../../config/config-schema.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SiemRecord } from './siem-repository.ts';
import type { SiemService } from './siem-service.ts';
import { rendererFor } from './siem-render.ts';
import { SyslogTransport } from './syslog-transport.ts';

export interface SiemTestResult {
  delivered: boolean;
  error: string | null;
  duration_ms: number;
  /** The syslog message that was sent (the sample carries no secrets). */
  message: string;
}

/**
 * Sends one sample `system.alert` on a connection of its own, so a test neither waits
 * behind nor disturbs the integration's queue. The sample is not an outbox event: it
 * reaches no other channel.
 */
export async function sendSiemTest(deps: { plugins: PluginRegistry; config: Config; service: SiemService }, record: SiemRecord): Promise<SiemTestResult> {
  const event: PlatformEvent = {
    id: '0',
    kind: 'system.alert',
    tenantId: record.tenantId,
    assetId: null,
    timestamp: new Date().toISOString(),
    data: { alert_type: 'siem.test', message: `Test message from Rampart for SIEM integration ${record.id}` },
  };
  const message = rendererFor(deps.plugins, record, deps.config.siem)(event);
  const transport = new SyslogTransport(deps.service.targetOf(record), { ...deps.config.siem, reconnectMinMs: 0 });
  const started = Date.now();
  try {
    await transport.send([message]);
    return { delivered: true, error: null, duration_ms: Date.now() - started, message };
  } catch (err) {
    return { delivered: false, error: (err as Error).message, duration_ms: Date.now() - started, message };
  } finally {
    await transport.close();
  }
}
