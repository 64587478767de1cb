import { tryMysqlLogin } from './protocols/mysql.ts';
import { tryPgLogin } from './protocols/postgresql.ts';
import type { AccessOptions } from './service-info.ts';

export interface LoginAttempt {
  user: string;
  outcome: 'in' | 'credential' | 'refused' | 'error';
  reason: string;
}

export interface LoginSurvey {
  /** Accounts that got in without a password ('' = anonymous). */
  open: string[];
  attempts: LoginAttempt[];
  /** Server version learned on the way (PostgreSQL's server_version, MySQL's handshake). */
  version?: string;
}

/**
 * Tries each account of `o.loginUsers` once, one after the other, with no password
 * (never a guessed one): the well-known administrator accounts of a fresh install that
 * was never given a password. Stops after two connection failures in a row, so a
 * server that stopped accepting connections is not hammered.
 */
export async function passwordlessLogins(service: 'postgresql' | 'mysql', host: string, port: number, o: AccessOptions): Promise<LoginSurvey> {
  const survey: LoginSurvey = { open: [], attempts: [] };
  let failures = 0;
  // PostgreSQL has no anonymous account: an empty user name is refused before any authentication.
  for (const user of [...new Set(o.loginUsers)].filter((u) => service === 'mysql' || u !== '')) {
    if (o.signal?.aborted || failures >= 2) break;
    try {
      const r = service === 'postgresql' ? await tryPgLogin(host, port, user, o) : await tryMysqlLogin(host, port, user, o);
      failures = 0;
      survey.attempts.push({ user, outcome: r.outcome, reason: r.reason });
      if (r.outcome === 'in') survey.open.push(user);
      const version = 'serverVersion' in r ? r.serverVersion : 'version' in r ? r.version : undefined;
      survey.version ??= version;
    } catch (err) {
      failures += 1;
      survey.attempts.push({ user, outcome: 'error', reason: (err as Error).message.slice(0, 200) });
    }
  }
  return survey;
}
