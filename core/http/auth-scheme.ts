import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import Boom from '@hapi/boom';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { tokenRepository } from '../auth/token-repository.ts';
import type { Scope, Tier } from '../domain/scopes.ts';
import { hashToken } from '../auth/token-codec.ts';

/** What a route handler knows about its caller: `request.auth.credentials`. */
export interface Caller {
  tenantId: string;
  tier: Tier;
  tokenId: string;
  userId: string | null;
  /** hapi reads `scope` for route `auth.access.scope` checks. */
  scope: Scope[];
}

export function callerOf(request: Request): Caller {
  return request.auth.credentials as unknown as Caller;
}

/** Routes that accept `?token=` besides the header (the event stream) set this in `plugins.rampart`. */
export interface RampartRouteSettings {
  queryToken?: boolean;
}

// last_used_at is bookkeeping; writing it at most once a minute per token keeps reads cheap.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The 401, after the failed attempt is charged to the client address's rate-limit bucket
 * (core/http/rate-limit-plugin.ts): once that bucket is empty the answer is its 429
 * instead, so unknown tokens cannot be probed at full speed.
 */
async function unauthorized(request: Request, message: string): Promise<never> {
  await request.server.plugins['rampart-rate-limit']?.chargeFailedAuthentication(request);
  throw Boom.unauthorized(message, 'Bearer');
}

function presentedToken(request: Request): string | null {
  const header = request.headers.authorization as string | undefined;
  if (header) {
    const match = /^Bearer[ ]+([\x21-\x7e]+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  const settings = request.route.settings.plugins as { rampart?: RampartRouteSettings };
  if (settings.rampart?.queryToken && typeof request.query.token === 'string') return request.query.token;
  return null;
}

/**
 * `Authorization: Bearer <token>`: opaque tokens, looked up by SHA-256. 401 for a
 * missing, malformed, unknown, revoked or expired token, or a disabled user.
 */
export function bearerAuthPlugin(db: Db, logger: Logger): Plugin<void> {
  return {
    name: 'rampart-bearer-auth',
    register(server) {
      server.auth.scheme('rampart-bearer', () => ({
        async authenticate(request: Request, h: ResponseToolkit) {
          if (request.headers.authorization && !/^Bearer /i.test(String(request.headers.authorization))) {
            return unauthorized(request, 'The Authorization header must use the Bearer scheme.');
          }
          const token = presentedToken(request);
          if (!token) return unauthorized(request, 'Missing bearer token.');
          const grant = await tokenRepository.findGrantByHash(db, hashToken(token));
          const now = Date.now();
          if (!grant || grant.revokedAt !== null || grant.userDisabled) return unauthorized(request, 'Unknown or revoked token.');
          if (grant.expiresAt !== null && grant.expiresAt <= now) return unauthorized(request, 'The token has expired.');
          if (grant.lastUsedAt === null || now - grant.lastUsedAt > TOUCH_INTERVAL_MS) {
            tokenRepository.touch(db, grant.tokenId, now).catch((err: Error) => logger.warn({ err: err.message }, 'could not record token use'));
          }
          const credentials: Caller = {
            tenantId: grant.tenantId,
            tier: grant.tenantTier,
            tokenId: grant.tokenId,
            userId: grant.userId,
            scope: grant.scopes,
          };
          return h.authenticated({ credentials: credentials as unknown as Record<string, unknown> });
        },
      }));
      server.auth.strategy('bearer', 'rampart-bearer');
      server.auth.default('bearer');
    },
  };
}
