import type { Db } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { credentialRepository, type CredentialRecord } from './credential-repository.ts';
import type { SecretBox } from './secret-box.ts';

/** Values shorter than this cannot be masked safely in outputs and logs (too likely to occur by chance). */
export const MIN_CREDENTIAL_LENGTH = 8;
export const MAX_CREDENTIAL_LENGTH = 65_536;

export interface CredentialInput {
  name: string;
  value: string;
  sandbox_value?: string;
}

export interface CredentialRotation {
  value?: string;
  /** A new sandbox value, or null to remove it. */
  sandbox_value?: string | null;
}

/** What the API shows of a credential: never a value. */
export interface CredentialMeta {
  name: string;
  hasSandboxValue: boolean;
  createdAt: number;
  updatedAt: number;
}

const meta = (c: CredentialRecord): CredentialMeta => ({ name: c.name, hasSandboxValue: c.sandboxValueSealed !== null, createdAt: c.createdAt, updatedAt: c.updatedAt });

// Bound to tenant, name and slot: a sealed value copied to another row or slot does not open.
const context = (tenantId: string, name: string, slot: 'value' | 'sandbox') => `credential:${tenantId}:${name}:${slot}`;

/**
 * The tenant credential store: named secrets sealed with the secret box, each with an
 * optional sandbox value that sandbox runs get instead. Values go in through the API and
 * out only through `resolve`, to the run engine.
 */
export class CredentialStore {
  readonly #db: Db;
  readonly #box: SecretBox;

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  async create(tenantId: string, input: CredentialInput): Promise<CredentialMeta> {
    const now = Date.now();
    const record: CredentialRecord = {
      tenantId,
      name: input.name,
      valueSealed: this.#box.seal(input.value, context(tenantId, input.name, 'value')),
      sandboxValueSealed: input.sandbox_value === undefined ? null : this.#box.seal(input.sandbox_value, context(tenantId, input.name, 'sandbox')),
      createdAt: now,
      updatedAt: now,
    };
    const exists = () => new ConflictError(`A credential named "${input.name}" already exists; rotate it with PUT.`, 'credential_exists');
    try {
      await this.#db.transaction(async (trx) => {
        if (await credentialRepository.find(trx, tenantId, input.name)) throw exists();
        await credentialRepository.insert(trx, record);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw exists();
      throw err;
    }
    return meta(record);
  }

  async get(tenantId: string, name: string): Promise<CredentialMeta> {
    const found = await credentialRepository.find(this.#db, tenantId, name);
    if (!found) throw new NotFoundError('Credential');
    return meta(found);
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<CredentialMeta>> {
    const result = await credentialRepository.list(this.#db, tenantId, page);
    return { rows: result.rows.map(meta), total: result.total };
  }

  /** Replaces the value and/or the sandbox value (null removes it); runs resolve the new one from now on. */
  async rotate(tenantId: string, name: string, rotation: CredentialRotation): Promise<CredentialMeta> {
    const changes: { valueSealed?: string; sandboxValueSealed?: string | null; updatedAt: number } = { updatedAt: Date.now() };
    if (rotation.value !== undefined) changes.valueSealed = this.#box.seal(rotation.value, context(tenantId, name, 'value'));
    if (rotation.sandbox_value !== undefined) {
      changes.sandboxValueSealed = rotation.sandbox_value === null ? null : this.#box.seal(rotation.sandbox_value, context(tenantId, name, 'sandbox'));
    }
    if (!(await credentialRepository.update(this.#db, tenantId, name, changes))) throw new NotFoundError('Credential');
    return this.get(tenantId, name);
  }

  async delete(tenantId: string, name: string): Promise<void> {
    if (!(await credentialRepository.delete(this.#db, tenantId, name))) throw new NotFoundError('Credential');
  }

  /**
   * For the run engine: the values of the named credentials. Sandbox runs get each
   * credential's sandbox value and never fall back to the production one. A missing
   * credential (or sandbox value) is a 400 naming it, never a value.
   */
  async resolve(tenantId: string, names: readonly string[], mode: { sandbox: boolean }): Promise<Record<string, string>> {
    const wanted = [...new Set(names)];
    const found = new Map((await credentialRepository.findMany(this.#db, tenantId, wanted)).map((c) => [c.name, c]));
    const out: Record<string, string> = {};
    for (const name of wanted) {
      const c = found.get(name);
      if (!c) throw new InputError(`The credential "${name}" is not set in this tenant's credential store.`, 'credential_missing', { credential: name });
      if (mode.sandbox) {
        if (c.sandboxValueSealed === null) {
          throw new InputError(`The credential "${name}" has no sandbox_value, which sandbox runs need (they never get the production value).`, 'sandbox_credential_missing', { credential: name });
        }
        out[name] = this.#box.open(c.sandboxValueSealed, context(tenantId, name, 'sandbox'));
      } else {
        out[name] = this.#box.open(c.valueSealed, context(tenantId, name, 'value'));
      }
    }
    return out;
  }
}
