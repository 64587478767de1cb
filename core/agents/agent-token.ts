import { randomBytes } from 'node:crypto';
import { hashToken } from '../auth/token-codec.ts';

/**
 * Agent tokens have their own prefix (API tokens are `rmp_`), so a leaked one is easy to
 * tell apart and secret scanners can flag both. Stored only as SHA-256, like API tokens;
 * the two never authenticate each other's routes (different tables).
 */
export const AGENT_TOKEN_PREFIX = 'rmpa_';

export function generateAgentToken(): { token: string; hash: string; prefix: string } {
  const token = AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, 12) };
}

/** The stored form of a presented token. */
export const agentTokenHash = (token: string): string => hashToken(token);
