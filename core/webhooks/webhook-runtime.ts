import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { OutboundHttpClient } from '../outbound/http-client.ts';
import { VERSION } from '../version.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { WebhookDeliveryService } from './webhook-delivery-service.ts';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.ts';
import { WebhookDispatcher } from './webhook-dispatcher.ts';
import { WebhookService } from './webhook-service.ts';

/** Everything webhooks need, built once per process; `start`/`stop` run the background parts. */
export interface WebhookRuntime {
  outbound: OutboundHttpClient;
  secretBox: SecretBox;
  webhooks: WebhookService;
  deliveries: WebhookDeliveryService;
  dispatcher: WebhookDispatcher;
  worker: WebhookDeliveryWorker;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createWebhookRuntime(deps: { config: Config; db: Db; bus: EventBus; outbox: Outbox; logger: Logger; now?: () => number }): WebhookRuntime {
  const { config, db, bus, outbox, logger } = deps;
  const outbound = new OutboundHttpClient({ ...config.outbound, userAgent: `Rampart/${VERSION}` });
  const secretBox = SecretBox.fromConfig(config.secrets, logger);
  const worker = new WebhookDeliveryWorker({ db, outbox, client: outbound, box: secretBox, config: config.webhooks, logger, now: deps.now });
  const dispatcher = new WebhookDispatcher({ db, bus, logger, config, onDeliveries: () => worker.wake() });
  let started = false;
  return {
    outbound,
    secretBox,
    webhooks: new WebhookService(db, secretBox, outbound, config.webhooks),
    deliveries: new WebhookDeliveryService(db, outbox, worker, config.webhooks),
    dispatcher,
    worker,
    async start() {
      if (started) return;
      started = true;
      await dispatcher.start();
      worker.start();
    },
    async stop() {
      if (started) {
        started = false;
        await dispatcher.stop();
        await worker.stop();
      }
      await outbound.close();
    },
  };
}
