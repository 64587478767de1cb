import test from 'ava';
import { netnsUnavailable } from '../targets/netns-hosts.ts';

/**
 * Whether tests that build hosts in network namespaces can run here: null when they
 * can, else the reason, printed. A missing package (iproute2, nftables) fails in CI
 * (RAMPART_REQUIRE_SERVICES, `.ci/run` installs them); missing privileges (not root, no
 * CAP_NET_ADMIN in a container) only skip, since no package fixes them.
 */
export async function netnsGate(label: string): Promise<string | null> {
  const reason = await netnsUnavailable();
  if (!reason) return null;
  if (process.env.RAMPART_REQUIRE_SERVICES && /not installed/.test(reason)) test(`${label}: network namespaces with nftables`, (t) => t.fail(reason));
  else console.warn(`${label} skipped: ${reason}`);
  return reason;
}
