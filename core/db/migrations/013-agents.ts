import type { Knex } from 'knex';

/** on-site execution agents and their jobs (core/agents). */
export const name = '013-agents';

export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
