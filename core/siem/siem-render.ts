import { hostname, networkInterfaces } from 'node:os';
import type { SiemConfig } from '../../config/event-channels-config.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SiemRecord } from './siem-repository.ts';
import { VERSION } from '../version.ts';
import { forwarderRenderer } from '../plugins/forwarder-renderer.ts';
import { truncateUtf8 } from '../plugins/syslog-message.ts';

let sourceIp: string | null | undefined;

/** This host's first non-internal IPv4 address (CEF `src`), looked up once. */
function localIp(): string | null {
  if (sourceIp === undefined) {
    sourceIp = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? null;
  }
  return sourceIp;
}

/** Renders events for one integration through the forwarder plugin of its format, cut to the message limit. */
export function rendererFor(plugins: PluginRegistry, integration: Pick<SiemRecord, 'format' | 'facility'>, config: SiemConfig): (event: PlatformEvent) => string {
  const forwarder = plugins.forwarderFor(integration.format);
  if (!forwarder) throw new Error(`No forwarder plugin for format "${integration.format}" is loaded.`);
  const render = forwarderRenderer(forwarder.plugin, forwarder.options, {
    hostname: config.hostname ?? hostname(),
    facility: integration.facility,
    appName: 'rampart',
    productVersion: VERSION,
    sourceIp: localIp(),
  });
  return (event) => truncateUtf8(render(event), config.maxMessageBytes);
}
