import type { Knex } from 'knex';
import * as m001 from './001-core.ts';
import * as m002 from './002-change-clock.ts';
import * as m003 from './003-assets.ts';
import * as m004 from './004-findings.ts';
import * as m005 from './005-exports.ts';
import * as m006 from './006-webhooks.ts';
import * as m007 from './007-siem.ts';
import * as m009 from './009-scans.ts';
import * as m010 from './010-scan-services.ts';
import * as m011 from './011-actions.ts';
import * as m012 from './012-action-executions.ts';
import * as m013 from './013-agents.ts';
import * as m014 from './014-approvals.ts';
import * as m015 from './015-playbooks.ts';
import * as m016 from './016-playbook-runs.ts';
import * as m017 from './017-scan-check-outcomes.ts';
import * as m018 from './018-finding-counters-search.ts';
import * as m019 from './019-finding-words.ts';
import * as m020 from './020-scan-callback-deliveries.ts';
import * as m030 from './030-finding-sources.ts';
import * as m031 from './031-finding-merges.ts';
import * as m032 from './032-finding-rededup.ts';
import * as m035 from './035-feeds.ts';
import * as m050 from './050-inventory.ts';
import * as m051 from './051-sso.ts';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
  /** `{ transaction: false }`: run outside knex's per-migration transaction (see 020). */
  config?: { transaction?: boolean };
}

/** Every migration, in order. Append only: never edit one that has shipped. */
export const migrations: Migration[] = [m001, m002, m003, m004, m005, m006, m007, m009, m010, m011, m012, m013, m014, m015, m016, m017, m018, m019, m020, m030, m031, m032, m035, m050, m051];
