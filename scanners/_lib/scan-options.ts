import type { OptionsSchema } from '../../core/plugin-api/index.ts';

/** The port-scan and service-check options the port and network scanners share (their manifests spread these). */
export const SCAN_OPTIONS = {
  concurrency: { type: 'integer', min: 1, max: 4000, default: 300, description: 'Connects in flight per host.' },
  max_sockets: { type: 'integer', min: 1, max: 20000, default: 1000, description: 'Connects in flight at once, all hosts of the scan together (keep under ulimit -n; the scan backs off if the process runs out of sockets anyway).' },
  connect_timeout_ms: { type: 'integer', min: 50, max: 60000, default: 1500, description: 'Longest wait for a connect, and the wait until a host has answered once; a port without an answer is filtered.' },
  min_connect_timeout_ms: { type: 'integer', min: 10, max: 60000, default: 100, description: 'Shortest learned connect timeout (each host\'s timeout is learned from its answers: srtt + 4 × rttvar).' },
  adaptive_timeout: { type: 'boolean', default: true, description: 'Learn each host\'s connect timeout from its answers; false waits connect_timeout_ms for every port.' },
  connect_retries: { type: 'integer', min: 0, max: 5, default: 1, description: 'Further attempts for a port that did not answer (a lost SYN is not a filter).' },
  scan_threads: { type: 'integer', min: 0, max: 8, default: 0, description: 'Threads a scan is spread over; 0: one per core for scans of 8192 connects or more.' },
  probe_timeout_ms: { type: 'integer', min: 100, max: 60000, default: 2000, description: 'Time limit of each service probe step.' },
  auth_checks: { type: 'boolean', default: true, description: 'Try the AMQP default guest/guest login and password-less logins of login_users on PostgreSQL and MySQL/MariaDB; false identifies services only.' },
  login_users: { type: 'string', default: 'root,postgres,admin,mysql,', description: 'Comma-separated database accounts tried without a password (an empty name is MySQL\'s anonymous account).' },
} satisfies OptionsSchema;
