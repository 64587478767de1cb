import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import { EventConsumer } from '../events/event-consumer.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { siemConsumerName, siemRepository, type SiemRecord } from './siem-repository.ts';
import type { SiemService } from './siem-service.ts';
import { rendererFor } from './siem-render.ts';
import { SyslogTransport, type PreparedBatch } from './syslog-transport.ts';
import { errorMessage } from '../work/coerce-error.ts';

interface Running {
  record: SiemRecord;
  consumer: EventConsumer<PreparedBatch>;
  transport: SyslogTransport;
}

export interface SiemForwardingDeps {
  db: Db;
  bus: EventBus;
  outbox: Outbox;
  logger: Logger;
  plugins: PluginRegistry;
  config: Config;
  service: SiemService;
}

/**
 * Runs one forwarder per active integration: a durable outbox consumer (`siem:<id>`,
 * core/events/event-consumer.ts in its pipelined mode) whose batches are rendered by
 * the format's forwarder plugin and written to the integration's syslog connection,
 * the next batch rendered while the previous one is written. A failed write leaves the cursor in place, so while
 * a collector is down events wait in the events table and go out in order once it is
 * back. The set of integrations is re-read on every change made through this process
 * and every `siem.refreshIntervalMs` (changes made by other processes).
 */
export class SiemForwarding {
  readonly #d: SiemForwardingDeps;
  readonly #running = new Map<string, Running>();
  #timer: NodeJS.Timeout | null = null;
  #reconciling: Promise<void> = Promise.resolve();
  #started = false;

  constructor(deps: SiemForwardingDeps) {
    this.#d = deps;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#d.config.siem.refreshIntervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#started = false;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#reconciling;
    await Promise.all([...this.#running.keys()].map((id) => this.#stopOne(id)));
  }

  /** Re-reads the integrations; serialised so two refreshes never race. */
  refresh(): Promise<void> {
    if (!this.#started) return Promise.resolve();
    this.#reconciling = this.#reconciling.then(() => this.#reconcile()).catch((err: unknown) => {
      this.#d.logger.error({ err: errorMessage(err) }, 'could not refresh SIEM integrations');
    });
    return this.#reconciling;
  }

  /** True while the integration's collector connection is open (for status and tests). */
  isConnected(id: string): boolean {
    return this.#running.get(id)?.transport.connected ?? false;
  }

  async #reconcile(): Promise<void> {
    if (!this.#started) return;
    const wanted = new Map((await siemRepository.listActive(this.#d.db)).map((r) => [r.id, r]));
    for (const [id, run] of this.#running) {
      const next = wanted.get(id);
      if (!next || next.updatedAt !== run.record.updatedAt) await this.#stopOne(id);
    }
    for (const [id, record] of wanted) {
      if (!this.#running.has(id) && this.#started) await this.#startOne(record);
    }
  }

  async #startOne(record: SiemRecord): Promise<void> {
    const { db, bus, logger, plugins, config, service } = this.#d;
    let render: (e: PlatformEvent) => string;
    let transport: SyslogTransport;
    try {
      render = rendererFor(plugins, record, config.siem);
      transport = new SyslogTransport(service.targetOf(record), config.siem);
    } catch (err) {
      logger.error({ integration: record.id, err: errorMessage(err) }, 'SIEM integration cannot start');
      await siemRepository.recordOutcome(db, record.id, { lastError: errorMessage(err), lastErrorAt: Date.now() });
      return;
    }
    let failing = record.lastError !== null;
    // `last_sent_at` is status, not a guarantee (the cursor is): written at most once a second while batches flow, always on recovery and when a round catches up.
    let statusAt = 0;
    let unwritten = false;
    const writeStatus = async () => {
      unwritten = false;
      statusAt = Date.now();
      await siemRepository.recordOutcome(db, record.id, { lastSentAt: statusAt });
    };
    const consumer = new EventConsumer<PreparedBatch>({
      name: siemConsumerName(record.id),
      db,
      bus,
      logger,
      filter: { tenantId: record.tenantId, kinds: record.events },
      batchSize: config.siem.batchSize,
      pollIntervalMs: config.events.pollIntervalMs,
      gapGraceMs: config.events.gapGraceMs,
      leaseMs: config.events.consumerLeaseMs,
      startAt: 'end',
      pipeline: {
        warm: () => transport.warm(),
        prepare: (events) => transport.prepare(events.map(render)),
        send: (batch) => transport.sendPrepared(batch),
        sent: async () => {
          unwritten = true;
          if (failing) {
            failing = false;
            unwritten = false;
            statusAt = Date.now();
            await siemRepository.recordOutcome(db, record.id, { lastSentAt: statusAt, lastError: null, lastErrorAt: null });
          } else if (Date.now() - statusAt >= 1000) {
            await writeStatus();
          }
        },
        idle: async () => {
          if (unwritten) await writeStatus();
        },
        failed: async (err) => {
          const message = errorMessage(err);
          if (!failing) {
            logger.warn({ integration: record.id, err: message }, 'SIEM collector unreachable; events wait until it is back');
            await this.#alert(record, message);
          }
          failing = true;
          await siemRepository.recordOutcome(db, record.id, { lastError: message, lastErrorAt: Date.now() });
        },
      },
    });
    this.#running.set(record.id, { record, consumer, transport });
    await consumer.start();
  }

  /** One `system.alert` per outage (on the transition to failing), for the stream and webhooks. */
  async #alert(record: SiemRecord, error: string): Promise<void> {
    try {
      await this.#d.outbox.transaction(({ emit }) =>
        emit({
          tenantId: record.tenantId,
          kind: 'system.alert',
          data: { alert_type: 'siem_unreachable', message: `SIEM integration ${record.name} (${record.host}:${record.port}) is unreachable: ${error}`, integration_id: record.id },
        }),
      );
    } catch (err) {
      this.#d.logger.error({ integration: record.id, err: errorMessage(err) }, 'could not record the SIEM outage alert');
    }
  }

  async #stopOne(id: string): Promise<void> {
    const run = this.#running.get(id);
    if (!run) return;
    this.#running.delete(id);
    // Closing the transport first cuts short a reconnect backoff the consumer may be waiting in.
    await run.transport.close();
    await run.consumer.stop();
  }
}
