import type { Knex } from 'knex';
import { jsonColumn } from '../table-defaults.ts';

/**
 * Services a finished check found (JSON list of {host, port, service, tls}), kept with
 * the check so a scan resumed by another worker still hands them to the checks that
 * consume them (the ssl scanner inspecting TLS ports found by the port scanner).
 */
export const name = '010-scan-services';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('scan_checks', (t) => {
    jsonColumn(t, 'services').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('scan_checks', (t) => {
    t.dropColumn('services');
  });
}
