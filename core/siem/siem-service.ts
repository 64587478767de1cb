import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { SiemConfig } from '../../config/event-channels-config.ts';
import type { Db } from '../db/create-db.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import { ipLiteral, type AddressPolicy } from '../outbound/address-policy.ts';
import { resolveAll } from '../outbound/guarded-lookup.ts';
import { changeClock } from '../db/change-clock.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { siemRepository, type SiemChanges } from './siem-repository.ts';
import type { SiemFormat, SiemProtocol, SiemRecord } from './siem-views.ts';
import type { SyslogTarget } from './syslog-transport.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemTestResult } from './siem-test-send.ts';

export interface SiemTlsInput {
  ca?: string | null;
  cert?: string | null;
  key?: string | null;
  server_name?: string | null;
  verify?: boolean;
}

export interface SiemInput {
  name?: string;
  type?: 'syslog';
  protocol?: SiemProtocol;
  host: string;
  port: number;
  format: SiemFormat;
  events: string[];
  facility?: number;
  active?: boolean;
  tls?: SiemTlsInput;
}

/** Parses every certificate and the key, and checks the key belongs to the client certificate. */
function checkPem(ca: string | null, cert: string | null, key: string | null): void {
  const certs = (pem: string) => {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (!blocks.length) throw new Error('no certificate found');
    return blocks.map((b) => new X509Certificate(b));
  };
  if (ca) certs(ca);
  if (cert && key) {
    const leaf = certs(cert)[0]!;
    if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error('the key does not belong to the client certificate');
  }
}

export const keyContext = (id: string): string => `siem:${id}:tls_key`;

/** SIEM integrations of a tenant; `onChange` tells this process's forwarders to re-read them. */
export class SiemService {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #policy: AddressPolicy;
  readonly #config: SiemConfig;
  readonly #onChange: () => void;
  readonly #sendTest: (record: SiemRecord) => Promise<SiemTestResult>;

  constructor(deps: { db: Db; box: SecretBox; policy: AddressPolicy; config: SiemConfig; onChange: () => void; sendTest: (record: SiemRecord) => Promise<SiemTestResult> }) {
    this.#sendTest = deps.sendTest;
    this.#db = deps.db;
    this.#box = deps.box;
    this.#policy = deps.policy;
    this.#config = deps.config;
    this.#onChange = deps.onChange;
  }

  /** Sends one sample message to the integration's collector on a connection of its own (the test call). */
  sendTest(record: SiemRecord): Promise<SiemTestResult> {
    return this.#sendTest(record);
  }

  /** Same SSRF rule as webhooks: private, loopback and link-local collectors must be allow-listed. */
  async #checkHost(host: string): Promise<void> {
    const literal = ipLiteral(host);
    let addresses: string[];
    try {
      addresses = literal ? [literal] : (await resolveAll(host)).map((a) => a.address);
    } catch {
      throw new InputError(`host: ${host} does not resolve.`, 'host_unresolvable', { field: 'host' });
    }
    for (const a of addresses) {
      const refused = this.#policy.refusal(a);
      if (refused) throw new InputError(`host: ${host} resolves to a ${refused} address (${a}), which is not allowed (outbound.allowPrivateCidrs).`, 'host_not_allowed', { field: 'host' });
    }
  }

  /** Merges TLS input over the stored settings and checks the result is usable. */
  #tlsChanges(id: string, protocol: SiemProtocol, input: SiemTlsInput | undefined, existing: SiemRecord | null): SiemChanges {
    if (input === undefined) return protocol === 'tcp_tls' || !existing ? {} : { tlsCa: null, tlsCert: null, tlsKeySealed: null, tlsServerName: null };
    if (protocol !== 'tcp_tls') throw new InputError('tls: TLS options apply only to protocol tcp_tls.', 'tls_not_applicable', { field: 'tls' });
    const ca = input.ca !== undefined ? input.ca : (existing?.tlsCa ?? null);
    const cert = input.cert !== undefined ? input.cert : (existing?.tlsCert ?? null);
    const key = input.key !== undefined ? input.key : existing?.tlsKeySealed ? this.#box.open(existing.tlsKeySealed, keyContext(id)) : null;
    if ((cert === null) !== (key === null)) throw new InputError('tls: a client certificate and its key go together.', 'tls_incomplete', { field: 'tls' });
    try {
      checkPem(ca, cert, key);
    } catch (err) {
      throw new InputError(`tls: the PEM material is not usable (${(err as Error).message.split('\n')[0]}).`, 'invalid_tls_material', { field: 'tls' });
    }
    const out: SiemChanges = { tlsCa: ca, tlsCert: cert };
    if (input.key !== undefined) out.tlsKeySealed = input.key === null ? null : this.#box.seal(input.key, keyContext(id));
    if (input.server_name !== undefined) out.tlsServerName = input.server_name;
    if (input.verify !== undefined) out.tlsVerify = input.verify;
    return out;
  }

  async create(tenantId: string, input: SiemInput): Promise<SiemRecord> {
    await this.#checkHost(input.host);
    const id = newId('siem');
    const now = Date.now();
    const protocol = input.protocol ?? 'tcp_tls';
    const tls = this.#tlsChanges(id, protocol, input.tls, null);
    await this.#db.transaction(async (trx) => {
      if ((await siemRepository.countByTenant(trx, tenantId)) >= this.#config.maxPerTenant) {
        throw new ConflictError(`A tenant may have at most ${this.#config.maxPerTenant} SIEM integrations.`, 'siem_limit_reached');
      }
      await siemRepository.insert(trx, id, tenantId, {
        name: input.name ?? `${input.host}:${input.port}`,
        type: 'syslog',
        protocol,
        host: input.host,
        port: input.port,
        format: input.format,
        events: input.events,
        facility: input.facility ?? 16,
        active: input.active ?? true,
        tlsVerify: true,
        ...tls,
        createdAt: now,
        updatedAt: now,
      });
      await changeClock.markChanged(trx, tenantId, 'integrations', now);
    });
    this.#onChange();
    return this.get(tenantId, id);
  }

  async get(tenantId: string, id: string): Promise<SiemRecord> {
    const record = await siemRepository.findById(this.#db, tenantId, id);
    if (!record) throw new NotFoundError('SIEM integration');
    return record;
  }

  /** When the tenant's SIEM integration list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'integrations');
  }

  list(tenantId: string, page: PageRequest): Promise<Page<SiemRecord>> {
    return siemRepository.list(this.#db, tenantId, page);
  }

  async update(tenantId: string, id: string, input: Partial<SiemInput>): Promise<SiemRecord> {
    const existing = await this.get(tenantId, id);
    if (input.host !== undefined && input.host !== existing.host) await this.#checkHost(input.host);
    const protocol = input.protocol ?? existing.protocol;
    const now = Date.now();
    const changes: SiemChanges = { ...this.#tlsChanges(id, protocol, input.tls, existing), updatedAt: now };
    for (const key of ['name', 'protocol', 'host', 'port', 'format', 'events', 'facility', 'active'] as const) {
      if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
    }
    await this.#db.transaction(async (trx) => {
      await siemRepository.update(trx, tenantId, id, changes);
      await changeClock.markChanged(trx, tenantId, 'integrations', now);
    });
    this.#onChange();
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: string): Promise<SiemRecord> {
    const existing = await this.get(tenantId, id);
    await this.#db.transaction(async (trx) => {
      await siemRepository.delete(trx, tenantId, id);
      await changeClock.markChanged(trx, tenantId, 'integrations');
    });
    this.#onChange();
    return existing;
  }

  /** Where and how to connect, with the client key opened; for the forwarder only. */
  targetOf(record: SiemRecord): SyslogTarget {
    return {
      protocol: record.protocol,
      host: record.host,
      port: record.port,
      policy: this.#policy,
      tls: {
        ca: record.tlsCa,
        cert: record.tlsCert,
        key: record.tlsKeySealed ? this.#box.open(record.tlsKeySealed, keyContext(record.id)) : null,
        serverName: record.tlsServerName,
        verify: record.tlsVerify,
      },
    };
  }
}
