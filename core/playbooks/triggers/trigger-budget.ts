import type { Db } from '../../db/create-db.ts';
import { tenantRepository } from '../../auth/tenant-repository.ts';
import { RateLimitedError } from '../../errors.ts';
import type { RateLimiter } from '../../rate-limit/rate-limiter.ts';

/** Takes one request token from a tenant's budget for a run a playbook's own events caused; false when the budget is spent. */
export type TriggeredRunCharge = (tenantId: string) => Promise<boolean>;

/**
 * A triggered run caused by another run costs its tenant one token of the same bucket
 * its API requests pay from (tier: Standard 100/min, burst 20): a fan-out can spend no
 * more than the tenant could by hand. Runs started by a platform event that no run caused
 * (a new finding, a finished scan) are not charged, so a busy API client never loses them.
 * With rate limiting off, nothing is charged.
 */
export function triggeredRunCharge(db: Db, limiter: RateLimiter): TriggeredRunCharge {
  return async (tenantId) => {
    if (!limiter.enabled) return true;
    const tenant = await tenantRepository.findById(db, tenantId);
    if (!tenant) return false;
    try {
      await limiter.charge({ tenantId, tier: tenant.tier });
      return true;
    } catch (err) {
      if (err instanceof RateLimitedError) return false;
      throw err;
    }
  };
}
