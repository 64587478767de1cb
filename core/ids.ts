import { randomBytes } from 'node:crypto';

// Crockford base32: sortable, case-insensitive, no ambiguous letters.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Known id prefixes, one per record kind, so an id says what it names. */
export type IdPrefix =
  | 'ten' | 'usr' | 'tok' | 'ast' | 'scn' | 'fnd' | 'act' | 'exe' | 'pbk' | 'pbx'
  | 'whk' | 'dlv' | 'siem' | 'sch' | 'exp' | 'note' | 'ver' | 'job'
  | 'apr' | 'apd' | 'pbs' | 'sbm' | 'cmp' | 'sso' | 'fdl';

/**
 * A ULID with a kind prefix, e.g. `ast_01JD3...`: 48 bits of milliseconds then 80
 * random bits. Time-ordered (good index locality, stable tie-break after created_at)
 * and unguessable.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let time = '';
  let ms = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i]! & 31];
  return `${prefix}_${time}${rand}`;
}

/** Shape check used by route validation: prefix, underscore, 26 base32 chars. */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`);
}
