import type { Knex } from 'knex';

/** actions, action versions and tenant credentials (core/actions, core/secrets). */
export const name = '011-actions';

export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
