import { createHash, randomBytes } from 'node:crypto';

/** Every token starts with this, so leaked tokens are easy to find with secret scanners. */
export const TOKEN_PREFIX = 'rmp_';

/** A new opaque token: 32 random bytes, base64url. Shown to the user once, never stored. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** What is stored and looked up: SHA-256 of the token (hex). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The first characters, kept to help a user recognise a token in a list. */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, 10);
}
