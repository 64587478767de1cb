import type { Knex } from 'knex';
import { createTable, idColumn, jsonColumn, timeColumn } from '../table-defaults.ts';

/**
 * Single sign-on with OpenID Connect (issue 31 §3): the identities providers vouch for,
 * the sign-ins in flight, and the per-tenant switch for password sign-in.
 */
export const name = '051-sso';

export async function up(db: Knex): Promise<void> {
  await createTable(db, 'sso_identities', (t) => {
    idColumn(t, 'id').primary();
    idColumn(t, 'tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    idColumn(t, 'user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('provider', 64).notNullable();
    // The provider's `sub`: the identity, whatever its email becomes.
    t.string('subject', 255).notNullable();
    t.string('role', 32).notNullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'last_sign_in_at').notNullable();
    t.unique(['provider', 'subject']);
    t.unique(['user_id']);
  });

  // One row per sign-in started; only hashes of the state, the browser binding and the
  // hand-off code are kept. Rows are removed once old (core/sso/sso-login-repository.ts).
  await createTable(db, 'sso_logins', (t) => {
    idColumn(t, 'id').primary();
    t.string('provider', 64).notNullable();
    t.string('state_hash', 64).notNullable().unique();
    t.string('binding_hash', 64).notNullable();
    t.string('nonce', 128).notNullable();
    t.string('code_verifier', 128).notNullable();
    timeColumn(t, 'created_at').notNullable();
    timeColumn(t, 'expires_at').notNullable();
    // Set when the provider's answer arrives: a second answer with the same state is a replay.
    timeColumn(t, 'used_at').nullable();
    t.string('handoff_hash', 64).nullable().unique();
    timeColumn(t, 'handoff_expires_at').nullable();
    timeColumn(t, 'exchanged_at').nullable();
    // The validated identity, waiting for the console to collect it with the binding.
    jsonColumn(t, 'outcome').nullable();
    t.index(['created_at']);
  });

  await db.schema.alterTable('tenants', (t) => {
    t.boolean('password_login').notNullable().defaultTo(true);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('tenants', (t) => t.dropColumn('password_login'));
  await db.schema.dropTableIfExists('sso_logins');
  await db.schema.dropTableIfExists('sso_identities');
}
