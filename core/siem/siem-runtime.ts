import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { AddressPolicy } from '../outbound/address-policy.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { SiemService } from './siem-service.ts';
import { SiemForwarding } from './siem-forwarding.ts';
import { sendSiemTest } from './siem-test-send.ts';

/** SIEM integrations (service) and their forwarders (background), built once per process. */
export interface SiemRuntime {
  service: SiemService;
  forwarding: SiemForwarding;
}

export function createSiemRuntime(deps: { config: Config; db: Db; bus: EventBus; outbox: Outbox; logger: Logger; plugins: PluginRegistry; secretBox: SecretBox }): SiemRuntime {
  const { config, db, bus, outbox, logger, plugins, secretBox } = deps;
  let forwarding: SiemForwarding | null = null;
  const service: SiemService = new SiemService({
    db, box: secretBox, policy: new AddressPolicy(config.outbound.allowPrivateCidrs), config: config.siem,
    onChange: () => void forwarding?.refresh(),
    sendTest: (record) => sendSiemTest({ plugins, config, service }, record),
  });
  forwarding = new SiemForwarding({ db, bus, outbox, logger, plugins, config, service });
  return { service, forwarding };
}
