import type { Knex } from 'knex';

/** action executions and their log lines (core/action-runs). */
export const name = '012-action-executions';

export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
