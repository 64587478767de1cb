import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../logger.ts';

/** `secrets` config: the master key, older keys still accepted for decryption, and where a generated key lives. */
export interface SecretsConfig {
  /** Base64 of 32 random bytes (`openssl rand -base64 32`); env RAMPART_SECRET_KEY. */
  key: string | null;
  /** Keys replaced by `key`: still decrypt what they sealed until it is re-sealed. */
  previousKeys: string[];
  /** Used only when `key` is unset: read, or created once with mode 0600. */
  keyFile: string;
}

const VERSION = 'v1';

function keyId(key: Buffer): string {
  return createHash('sha256').update('rampart-secret-box-key-id\0').update(key).digest('hex').slice(0, 12);
}

/** Decodes a configured key; throws with a message naming the problem (never the key). */
export function decodeKey(text: string, what = 'secrets.key'): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${what} must be the base64 of exactly 32 bytes (got ${key.length}); generate one with \`openssl rand -base64 32\`.`);
  return key;
}

/**
 * Encrypts secrets at rest (webhook secrets, credential-store values) with AES-256-GCM.
 * Sealed form: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id
 * lets several keys coexist during rotation and gives a clear error when the wrong
 * key is configured; `context` (e.g. `webhook:<id>:secret`) is bound as additional
 * authenticated data, so a sealed value copied onto another row does not open.
 */
export class SecretBox {
  readonly #keys = new Map<string, Buffer>();
  readonly #current: string;

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.#current = keyId(current);
    this.#keys.set(this.#current, current);
    for (const k of previous) if (!this.#keys.has(keyId(k))) this.#keys.set(keyId(k), k);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.#current)!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.#current, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, kid, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !kid || iv === undefined || body === undefined || !tag) throw new Error('Not a sealed secret.');
    const key = this.#keys.get(kid);
    if (!key) throw new Error(`This secret was sealed with key ${kid}, which is not configured (secrets.key / secrets.previousKeys).`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** True when the value was sealed with an older key (re-seal it when convenient). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.#current;
  }

  /**
   * The configured key, or else the key file, created on first start (32 random bytes,
   * mode 0600, exclusive create so two processes starting together agree on one key).
   */
  static fromConfig(config: SecretsConfig, logger?: Logger): SecretBox {
    const previous = config.previousKeys.map((k, i) => decodeKey(k, `secrets.previousKeys[${i}]`));
    if (config.key) return new SecretBox(decodeKey(config.key), previous);
    const file = resolve(config.keyFile);
    try {
      return new SecretBox(decodeKey(readFileSync(file, 'utf8'), file), previous);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Written in full under a temporary name, then linked into place: link() fails if
    // the file exists, so a concurrent starter never reads a half-written key.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
      logger?.warn({ keyFile: file }, 'generated a new secret-encryption key; back it up (without it stored secrets cannot be decrypted) and set RAMPART_SECRET_KEY on every process when several share a database');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
    return new SecretBox(decodeKey(readFileSync(file, 'utf8'), file), previous);
  }
}
