import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { BackgroundService } from '../work/background-registry.ts';
import type { AttemptObserver } from './webhook-attempt-recorder.ts';
import { WebhookDeliveryService } from './webhook-delivery-service.ts';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.ts';
import { WebhookDispatcher } from './webhook-dispatcher.ts';
import { WebhookService } from './webhook-service.ts';

/** The background half of webhooks: the outbox consumer that creates deliveries, and the worker that sends them. */
export interface WebhookBackground extends BackgroundService {
  dispatcher: WebhookDispatcher;
  worker: WebhookDeliveryWorker;
}

/** Webhook services (API) and their background service, built once per process on the shared outbound client and secret box. */
export interface WebhookRuntime {
  webhooks: WebhookService;
  deliveries: WebhookDeliveryService;
  background: WebhookBackground;
}

export function createWebhookRuntime(deps: { config: Config; db: Db; bus: EventBus; outbox: Outbox; logger: Logger; outbound: OutboundHttpClient; secretBox: SecretBox; now?: () => number; onAttempt?: AttemptObserver }): WebhookRuntime {
  const { config, db, bus, outbox, logger, outbound, secretBox } = deps;
  const worker = new WebhookDeliveryWorker({ db, outbox, client: outbound, box: secretBox, config: config.webhooks, callbacks: config.scans.callbacks, logger, now: deps.now, onAttempt: deps.onAttempt });
  const dispatcher = new WebhookDispatcher({ db, bus, logger, config, onDeliveries: () => worker.wake() });
  let started = false;
  return {
    webhooks: new WebhookService(db, secretBox, outbound, config.webhooks),
    deliveries: new WebhookDeliveryService(db, outbox, worker, config.webhooks),
    background: {
      name: 'webhooks',
      roles: ['worker'],
      dispatcher,
      worker,
      async start() {
        if (started) return;
        started = true;
        await dispatcher.start();
        worker.start();
      },
      async stop() {
        if (!started) return;
        started = false;
        await dispatcher.stop();
        await worker.stop();
      },
    },
  };
}
