import test from 'ava';
import type { SsoProviderConfig } from '../../../config/sso-config.ts';
import { claimValues, mapClaims } from '../../../core/sso/sso-mapping.ts';
import { SsoRefusal } from '../../../core/sso/sso-refusal.ts';
import { ROLE_SCOPES, ROLES } from '../../../core/domain/roles.ts';
import { SCOPES } from '../../../core/domain/scopes.ts';

const provider = (claim = 'groups'): SsoProviderConfig => ({
  id: 'corp', name: 'Corp', issuer: 'https://idp.example', clientId: 'rampart', clientSecret: null, scopes: ['openid'], claim,
  mappings: [
    { value: 'viewers', tenant: 'acme', role: 'viewer' },
    { value: 'responders', tenant: 'acme', role: 'responder' },
    { value: 'globex', tenant: 'globex', role: 'analyst' },
  ],
});

test('the highest role among the mapped groups of one tenant', (t) => {
  t.deepEqual(mapClaims(provider(), { groups: ['staff', 'viewers', 'responders'] }), { tenant: 'acme', role: 'responder' });
  t.deepEqual(mapClaims(provider(), { groups: 'viewers' }), { tenant: 'acme', role: 'viewer' });
  t.deepEqual(mapClaims(provider('realm_access.roles'), { realm_access: { roles: ['globex'] } }), { tenant: 'globex', role: 'analyst' });
  t.deepEqual(claimValues({ groups: ['a', 7, null, 'b'] }, 'groups'), ['a', 'b']);
});

test('no mapped group, or groups of two tenants, is refused', (t) => {
  const none = t.throws(() => mapClaims(provider(), { groups: ['staff'] }), { instanceOf: SsoRefusal });
  t.is(none.code, 'sso_no_access');
  t.is(t.throws(() => mapClaims(provider(), {}), { instanceOf: SsoRefusal }).code, 'sso_no_access');
  t.is(t.throws(() => mapClaims(provider(), { groups: ['viewers', 'globex'] }), { instanceOf: SsoRefusal }).code, 'sso_ambiguous_tenant');
});

test('roles are nested scope bundles of the tenant scopes; none gives admin', (t) => {
  for (let i = 1; i < ROLES.length; i++) {
    const lower = ROLE_SCOPES[ROLES[i - 1]!];
    const higher = ROLE_SCOPES[ROLES[i]!];
    t.true(lower.every((s) => higher.includes(s)), `${ROLES[i]} holds ${ROLES[i - 1]}`);
    t.true(higher.length > lower.length);
  }
  t.deepEqual([...ROLE_SCOPES.tenant_admin].sort(), SCOPES.filter((s) => s !== 'admin').sort());
  t.false(Object.values(ROLE_SCOPES).some((list) => list.includes('admin')));
  t.deepEqual(ROLE_SCOPES.viewer, ['assets:read', 'scan:read', 'findings:read', 'actions:read', 'playbooks:read', 'events:read']);
});
