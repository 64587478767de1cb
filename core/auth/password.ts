import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

const KEY_LENGTH = 32;

/** The key derivation behind a hash; tests inject one they can hold and count. */
export type DeriveKey = (password: string, salt: Buffer, params: ScryptParams) => Promise<Buffer>;

export const scryptKey: DeriveKey = (password, salt, params) => {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    // 128 * N * r bytes are needed; OWASP's N=2^17 exceeds Node's 32 MiB default.
    maxmem: 256 * params.N * params.r + 1024 * 1024,
  };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
};

/** Hashes a password as `scrypt$N$r$p$<salt b64>$<hash b64>`; parameters travel with the hash. */
export async function hashPassword(password: string, params: ScryptParams, derive: DeriveKey = scryptKey): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time comparison against a stored hash; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string, derive: DeriveKey = scryptKey): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await derive(password, salt, { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** True when a stored hash was made with other parameters than the current ones. */
export function needsRehash(stored: string, params: ScryptParams): boolean {
  const [, N, r, p] = stored.split('$');
  return Number(N) !== params.N || Number(r) !== params.r || Number(p) !== params.p;
}
