import type { DiscoveredService } from '../plugin-api/index.ts';

/** More services than this from one check is a broken plugin, not a network. */
export const MAX_SERVICES_PER_CHECK = 10_000;

/** The entry in canonical form, or null when it is not a usable service (dropped, never stored). */
export function normaliseService(s: unknown): DiscoveredService | null {
  if (!s || typeof s !== 'object') return null;
  const { host, port, service, tls } = s as Record<string, unknown>;
  if (typeof host !== 'string' || !host || host.length > 255 || /[\s/]/.test(host)) return null;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  const name = typeof service === 'string' && /^[a-z0-9_.+-]{1,32}$/i.test(service) ? service.toLowerCase() : 'unknown';
  return { host: host.toLowerCase(), port, service: name, tls: tls === true };
}

/**
 * Services a check reports, deduplicated by host:port (a later, more specific report of
 * the same port replaces an `unknown` one) and bounded in number.
 */
export class ServiceList {
  readonly #byKey = new Map<string, DiscoveredService>();

  add(candidate: unknown): boolean {
    const s = normaliseService(candidate);
    if (!s) return false;
    const key = `${s.host}|${s.port}`;
    const known = this.#byKey.get(key);
    if (!known && this.#byKey.size >= MAX_SERVICES_PER_CHECK) return false;
    if (known && known.service !== 'unknown' && s.service === 'unknown') return true;
    this.#byKey.set(key, s);
    return true;
  }

  addAll(list: readonly unknown[] | null | undefined): this {
    for (const s of list ?? []) this.add(s);
    return this;
  }

  toArray(): DiscoveredService[] {
    return [...this.#byKey.values()];
  }
}
