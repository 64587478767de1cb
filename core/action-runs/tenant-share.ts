/**
 * Each tenant's share of one worker's executor slots (`executors.concurrency`), by tier. A
 * tenant holds at most `max(1, floor(concurrency × share))` slots at once, waiting or not:
 * a running action cannot be pre-empted (it may already have had effects), so the only way
 * to keep a slot free for another tenant's run is never to give the last ones away. Playbook
 * steps and agent jobs are action runs and hold their run's slot, so they count the same.
 * docs/design/actions.md states the rule.
 */
export const TIER_SHARE: Readonly<Record<string, number>> = { standard: 1 / 2, premium: 2 / 3, enterprise: 3 / 4 };

/**
 * How many of `concurrency` slots a tenant of `tier` may hold at once; `shares`
 * (`executors.tenantShares`) overrides a tier's default share.
 */
export function shareSlots(concurrency: number, tier: string | null, shares: Readonly<Record<string, number | undefined>> = {}): number {
  const t = tier ?? 'standard';
  const share = shares[t] ?? TIER_SHARE[t] ?? shares.standard ?? TIER_SHARE.standard!;
  return Math.max(1, Math.floor(concurrency * share));
}
