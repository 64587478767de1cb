import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { changeClock } from '../db/change-clock.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { webhookRepository, type WebhookChanges, type WebhookRecord } from './webhook-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { headersContext, secretContext } from './webhook-attempt.ts';
import type { WebhookFilters } from './webhook-filter.ts';
import type { Transform, TransformOptions } from './webhook-payload.ts';

export interface WebhookInput {
  name: string;
  url: string;
  events: string[];
  secret?: string | null;
  headers?: Record<string, string>;
  active?: boolean;
  transform?: Transform | null;
  transform_options?: TransformOptions;
  filters?: WebhookFilters;
}

const URL_ERROR_CODES: Record<string, string> = {
  destination_refused: 'url_not_allowed',
  https_required: 'https_required',
  invalid_url: 'invalid_url',
  dns_failed: 'url_unresolvable',
};

/** Webhook endpoints of a tenant: create, read, update, delete, secret rotation. */
export class WebhookService {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #client: OutboundHttpClient;
  readonly #config: WebhooksConfig;

  constructor(db: Db, box: SecretBox, client: OutboundHttpClient, config: WebhooksConfig) {
    this.#db = db;
    this.#box = box;
    this.#client = client;
    this.#config = config;
  }

  /** Registration-time SSRF and form check; the same rules apply again on every connection. */
  async #checkUrl(url: string): Promise<void> {
    try {
      await this.#client.checkUrl(url);
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      throw new InputError(`url: ${err.message}`, URL_ERROR_CODES[err.code] ?? 'invalid_url', { field: 'url' });
    }
  }

  #sealed(id: string, input: Partial<WebhookInput>): WebhookChanges {
    const out: WebhookChanges = {};
    if (input.secret !== undefined) out.secretSealed = input.secret === null ? null : this.#box.seal(input.secret, secretContext(id));
    if (input.headers !== undefined) {
      const names = Object.keys(input.headers);
      out.headersSealed = names.length ? this.#box.seal(JSON.stringify(input.headers), headersContext(id)) : null;
      out.headerNames = names;
    }
    return out;
  }

  async create(tenantId: string, input: WebhookInput): Promise<WebhookRecord> {
    await this.#checkUrl(input.url);
    const id = newId('whk');
    const now = Date.now();
    await this.#db.transaction(async (trx) => {
      if ((await webhookRepository.countByTenant(trx, tenantId)) >= this.#config.maxPerTenant) {
        throw new ConflictError(`A tenant may have at most ${this.#config.maxPerTenant} webhooks.`, 'webhook_limit_reached');
      }
      await webhookRepository.insert(trx, id, tenantId, {
        name: input.name,
        url: input.url,
        events: input.events,
        filters: input.filters ?? {},
        transform: input.transform ?? null,
        transformOptions: input.transform_options ?? {},
        headerNames: [],
        active: input.active ?? true,
        ...this.#sealed(id, input),
        createdAt: now,
        updatedAt: now,
      });
      await changeClock.markChanged(trx, tenantId, 'webhooks', now);
    });
    return this.get(tenantId, id);
  }

  async get(tenantId: string, id: string): Promise<WebhookRecord> {
    const hook = await webhookRepository.findById(this.#db, tenantId, id);
    if (!hook) throw new NotFoundError('Webhook');
    return hook;
  }

  /** When the tenant's webhook list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'webhooks');
  }

  list(tenantId: string, page: PageRequest): Promise<Page<WebhookRecord>> {
    return webhookRepository.list(this.#db, tenantId, page);
  }

  async update(tenantId: string, id: string, input: Partial<WebhookInput>): Promise<WebhookRecord> {
    const existing = await this.get(tenantId, id);
    if (input.url !== undefined && input.url !== existing.url) await this.#checkUrl(input.url);
    const now = Date.now();
    const changes: WebhookChanges = { ...this.#sealed(id, input), updatedAt: now };
    if (input.name !== undefined) changes.name = input.name;
    if (input.url !== undefined) changes.url = input.url;
    if (input.events !== undefined) changes.events = input.events;
    if (input.filters !== undefined) changes.filters = input.filters;
    if (input.transform !== undefined) changes.transform = input.transform;
    if (input.transform_options !== undefined) changes.transformOptions = input.transform_options;
    // Replacing the secret outright ends any rotation grace period (use rotate for one).
    if (input.secret !== undefined) Object.assign(changes, { previousSecretSealed: null, previousSecretExpiresAt: null });
    if (input.active !== undefined) {
      changes.active = input.active;
      if (input.active && !existing.active) Object.assign(changes, { disabledReason: null, disabledAt: null, failingSince: null });
      if (!input.active && existing.active) Object.assign(changes, { disabledReason: 'manual', disabledAt: now });
    }
    await this.#db.transaction(async (trx) => {
      await webhookRepository.update(trx, tenantId, id, changes);
      await changeClock.markChanged(trx, tenantId, 'webhooks', now);
    });
    return this.get(tenantId, id);
  }

  /** Deletes the webhook with its deliveries and attempts (cascade). */
  async delete(tenantId: string, id: string): Promise<WebhookRecord> {
    const existing = await this.get(tenantId, id);
    await this.#db.transaction(async (trx) => {
      await webhookRepository.delete(trx, tenantId, id);
      await changeClock.markChanged(trx, tenantId, 'webhooks');
    });
    return existing;
  }

  /**
   * Replaces the secret while the old one keeps signing for `graceSeconds`: each delivery
   * carries signatures by both, so receivers can switch at any moment in that window.
   */
  async rotateSecret(tenantId: string, id: string, secret: string, graceSeconds: number): Promise<WebhookRecord> {
    const existing = await this.get(tenantId, id);
    const now = Date.now();
    const keepOld = existing.secretSealed !== null && graceSeconds > 0;
    await this.#db.transaction(async (trx) => {
      await webhookRepository.update(trx, tenantId, id, {
        secretSealed: this.#box.seal(secret, secretContext(id)),
        previousSecretSealed: keepOld ? existing.secretSealed : null,
        previousSecretExpiresAt: keepOld ? now + graceSeconds * 1000 : null,
        updatedAt: now,
      });
      await changeClock.markChanged(trx, tenantId, 'webhooks', now);
    });
    return this.get(tenantId, id);
  }
}
