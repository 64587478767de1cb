import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Identifies this process in lease columns (`locked_by`): host, pid and a random tail. */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

let seq = 0;

/**
 * A lease token unique to one claim (`<instance>#<tag><n>`): a worker that lost its
 * lease cannot write over the claim that replaced it, even in the same process.
 */
export function claimToken(tag = ''): string {
  return `${INSTANCE_ID}#${tag}${++seq}`;
}
