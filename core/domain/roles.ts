import { TENANT_SCOPES, type Scope } from './scopes.ts';

/**
 * Roles a single sign-on user gets from their identity provider's groups: named bundles
 * of the scopes in scopes.ts, each holding the one before it (docs/sso.md#roles).
 */
export const ROLES = ['viewer', 'analyst', 'responder', 'tenant_admin'] as const;
export type UserRole = (typeof ROLES)[number];

const VIEWER: Scope[] = TENANT_SCOPES.filter((s) => s.endsWith(':read'));
// Triage findings, manage assets (SBOMs included), run scans.
const ANALYST: Scope[] = [...VIEWER, 'assets:write', 'scan:write', 'findings:write'];
// Act on what was found: trigger actions and run playbooks.
const RESPONDER: Scope[] = [...ANALYST, 'actions:execute', 'playbooks:run'];

export const ROLE_SCOPES: Record<UserRole, Scope[]> = {
  viewer: VIEWER,
  analyst: ANALYST,
  responder: RESPONDER,
  // Everything in the tenant, not the platform: `admin` is never given by a role.
  tenant_admin: TENANT_SCOPES,
};

/** The higher of two roles (a user in several mapped groups gets the highest). */
export function higherRole(a: UserRole, b: UserRole): UserRole {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}
