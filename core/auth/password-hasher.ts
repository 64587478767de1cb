import { HashGate } from './hash-gate.ts';
import { hashPassword, needsRehash, scryptKey, verifyPassword, type DeriveKey, type ScryptParams } from './password.ts';

export type { DeriveKey } from './password.ts';

/** The `auth` settings password hashing reads. */
export interface PasswordHashing {
  scrypt: ScryptParams;
  maxConcurrentHashes: number;
  maxQueuedHashes: number;
}

/**
 * The process's one way to hash and verify passwords: the configured scrypt parameters,
 * with every derivation (login, the unknown-email dummy, rehash, user creation) passing
 * through one HashGate, so the memory scrypt needs is bounded however many logins arrive.
 */
export class PasswordHasher {
  readonly gate: HashGate;
  readonly #scrypt: ScryptParams;
  readonly #derive: DeriveKey;

  constructor(settings: PasswordHashing, derive: DeriveKey = scryptKey) {
    this.#scrypt = settings.scrypt;
    this.#derive = derive;
    this.gate = new HashGate({ maxConcurrent: settings.maxConcurrentHashes, maxQueued: settings.maxQueuedHashes });
  }

  /** ServerBusyError (503) when the gate is full. */
  hash(password: string): Promise<string> {
    return this.gate.run(() => hashPassword(password, this.#scrypt, this.#derive));
  }

  /** ServerBusyError (503) when the gate is full. */
  verify(password: string, stored: string): Promise<boolean> {
    return this.gate.run(() => verifyPassword(password, stored, this.#derive));
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.#scrypt);
  }
}
