import { createHash } from 'node:crypto';

/**
 * The namespace the CACAO v2 spec suggests for UUIDv5 playbook ids. Every id of an
 * export is derived from it and a Rampart id, so exporting the same version twice gives
 * the same document (and the ids pass the schemas, which accept UUID versions 1-5 only).
 */
export const CACAO_NAMESPACE = 'aa7caf3a-d55a-4e9a-b34e-056215fba56a';

/** RFC 4122 name-based UUID (SHA-1, version 5). */
export function uuidV5(name: string, namespace: string = CACAO_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A CACAO identifier `<type>--<uuidv5(name)>`. */
export const cacaoId = (type: string, name: string): string => `${type}--${uuidV5(name)}`;
