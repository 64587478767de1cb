/**
 * Every permission a token can carry. `admin` is the platform-administrator scope:
 * it manages tenants, users and tokens across tenants, so grant it only to operators.
 */
export const SCOPES = [
  'assets:read',
  'assets:write',
  'scan:read',
  'scan:write',
  'findings:read',
  'findings:write',
  'actions:read',
  'actions:write',
  'actions:execute',
  'playbooks:read',
  'playbooks:write',
  'playbooks:run',
  'webhooks:manage',
  'events:read',
  'integrations:manage',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Every scope but `admin`: what a tenant's own full-access token holds. */
export const TENANT_SCOPES: Scope[] = SCOPES.filter((s) => s !== 'admin');

export const TIERS = ['standard', 'premium', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];
