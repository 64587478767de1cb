import type { SsoProviderConfig } from '../../config/sso-config.ts';
import { higherRole, type UserRole } from '../domain/roles.ts';
import { SsoRefusal } from './sso-refusal.ts';

/** The claim at a dotted path (`groups`, `realm_access.roles`), as a list of strings. */
export function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    value = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The tenant and role the ID token's groups give: every mapping whose value the claim
 * holds, all of one tenant (several tenants is refused: a user belongs to one), the
 * highest role among them. No mapped group: no access.
 */
export function mapClaims(provider: SsoProviderConfig, claims: Record<string, unknown>): { tenant: string; role: UserRole } {
  const values = new Set(claimValues(claims, provider.claim));
  const matched = provider.mappings.filter((m) => values.has(m.value));
  if (matched.length === 0) {
    throw new SsoRefusal('sso_no_access', `none of the ${values.size} value(s) of claim "${provider.claim}" is mapped in sso.providers[${provider.id}].mappings`);
  }
  const tenants = new Set(matched.map((m) => m.tenant));
  if (tenants.size > 1) throw new SsoRefusal('sso_ambiguous_tenant', `the groups map to tenants ${[...tenants].join(', ')}`);
  return { tenant: matched[0]!.tenant, role: matched.map((m) => m.role).reduce(higherRole) };
}
