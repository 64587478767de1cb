import type { Knex } from 'knex';

/** approval requests and decisions (core/approvals). */
export const name = '014-approvals';

export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
