import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { AddressPolicy } from '../outbound/address-policy.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SiemRecord } from './siem-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { SiemService } from './siem-service.ts';
import { SiemForwarding } from './siem-forwarding.ts';
import { sendSiemTest, type SiemTestResult } from './siem-test-send.ts';

/** SIEM integrations (service) and their forwarders (background), built once per process. */
export interface SiemRuntime {
  service: SiemService;
  forwarding: SiemForwarding;
  sendTest(record: SiemRecord): Promise<SiemTestResult>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createSiemRuntime(deps: { config: Config; db: Db; bus: EventBus; outbox: Outbox; logger: Logger; plugins: PluginRegistry; box: SecretBox }): SiemRuntime {
  const { config, db, bus, outbox, logger, plugins, box } = deps;
  let forwarding: SiemForwarding | null = null;
  const service = new SiemService({ db, box, policy: new AddressPolicy(config.outbound.allowPrivateCidrs), config: config.siem, onChange: () => void forwarding?.refresh() });
  forwarding = new SiemForwarding({ db, bus, outbox, logger, plugins, config, service });
  const running = forwarding;
  return {
    service,
    forwarding: running,
    sendTest: (record) => sendSiemTest({ plugins, config, service }, record),
    start: () => running.start(),
    stop: () => running.stop(),
  };
}
