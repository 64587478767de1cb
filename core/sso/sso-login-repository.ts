import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';

/** What a provider vouched for, kept until the console collects it. */
export interface SsoOutcome {
  subject: string;
  email: string | null;
  name: string | null;
  tenantId: string;
  role: string;
}

export interface SsoLoginRow {
  id: string;
  provider: string;
  state_hash: string;
  binding_hash: string;
  nonce: string;
  code_verifier: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  handoff_hash: string | null;
  handoff_expires_at: number | null;
  exchanged_at: number | null;
  outcome: string | null;
}

// Sign-ins are minutes long; a day later their rows only take space.
const KEEP_MS = 24 * 3600_000;

export const ssoLoginRepository = {
  async insert(db: Queryable, row: Omit<SsoLoginRow, 'used_at' | 'handoff_hash' | 'handoff_expires_at' | 'exchanged_at' | 'outcome'>): Promise<void> {
    await db('sso_logins').insert(row);
    await db('sso_logins').where('created_at', '<', row.created_at - KEEP_MS).delete();
  },

  async findByState(db: Queryable, stateHash: string): Promise<SsoLoginRow | null> {
    return ((await db('sso_logins').where({ state_hash: stateHash }).first()) as SsoLoginRow | undefined) ?? null;
  },

  async findByHandoff(db: Queryable, handoffHash: string): Promise<SsoLoginRow | null> {
    return ((await db('sso_logins').where({ handoff_hash: handoffHash }).first()) as SsoLoginRow | undefined) ?? null;
  },

  /** Marks the provider's answer as arrived; false when it already had (a replay). */
  async claim(db: Queryable, id: string, now: number): Promise<boolean> {
    return (await db('sso_logins').where({ id }).whereNull('used_at').update({ used_at: now })) === 1;
  },

  async succeed(db: Queryable, id: string, outcome: SsoOutcome, handoffHash: string, handoffExpiresAt: number): Promise<void> {
    await db('sso_logins').where({ id }).update({ outcome: toJson(outcome), handoff_hash: handoffHash, handoff_expires_at: handoffExpiresAt });
  },

  /** Marks the hand-off collected; false when it already was. */
  async exchange(db: Queryable, id: string, now: number): Promise<boolean> {
    return (await db('sso_logins').where({ id }).whereNull('exchanged_at').update({ exchanged_at: now, nonce: '', code_verifier: '' })) === 1;
  },

  outcomeOf(row: SsoLoginRow): SsoOutcome | null {
    return fromJson<SsoOutcome | null>(row.outcome, null);
  },
};
