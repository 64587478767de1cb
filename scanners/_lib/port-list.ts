/**
 * Commonly exposed TCP ports, most common first (nmap's top-100 services order, plus
 * the database, cache and admin ports this scanner has probes and findings for).
 */
export const TOP_PORTS: readonly number[] = [
  80, 23, 443, 21, 22, 25, 3389, 110, 445, 139, 143, 53, 135, 3306, 8080, 1723, 111, 995, 993, 5900, 1025, 587, 8888, 199, 1720, 465, 548, 113, 81, 6001,
  10000, 514, 5060, 179, 1026, 2000, 8443, 8000, 32768, 554, 26, 1433, 49152, 2001, 515, 8008, 49154, 1027, 5666, 646, 5000, 5631, 631, 49153, 8081, 2049,
  88, 79, 5800, 106, 2121, 1110, 49155, 6000, 513, 990, 5357, 427, 49156, 543, 544, 5101, 144, 7, 389, 8009, 3128, 444, 9999, 5009, 7070, 5190, 3000, 5432,
  1900, 3986, 13, 1029, 9, 5051, 6646, 49157, 1028, 873, 1755, 2717, 4899, 9100, 119, 37,
  6379, 11211, 27017, 9200, 9300, 5984, 2375, 2376, 6443, 10250, 5672, 15672, 9092, 2181, 8500, 4369, 1521, 50000, 8086, 9000, 9090, 9443, 8161, 61616,
];

const PORTS_SYNTAX = 'use top, top:N, all, or a list such as 22,80,8000-8100';

/**
 * Why a `ports` option cannot be scanned, or null when it can (absent means `top`).
 * Checks every port and range without expanding them, so it is cheap enough to run on
 * every scan and schedule creation.
 */
export function portsProblem(spec: unknown): string | null {
  if (spec === undefined || spec === null) return null;
  if (typeof spec !== 'string') return `ports must be a string: ${PORTS_SYNTAX}`;
  const text = spec.trim();
  if (!text || text === 'top' || text === 'all' || /^top:\d+$/.test(text)) return null;
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return `invalid ports "${text}": ${PORTS_SYNTAX}`;
    const from = Number(m[1]);
    const to = m[2] ? Number(m[2]) : from;
    if (from < 1 || to > 65535 || from > to) return `invalid port range ${part.trim()} (ports are 1-65535, a range goes from low to high)`;
  }
  return null;
}

/**
 * Parses the `ports` option: `top` (default), `top:N`, `all` (1-65535), or a list of
 * ports and ranges (`22,80,8000-8100`). Returns unique ports in the given order; throws
 * with {@link portsProblem}'s message on a spec it refuses.
 */
export function parsePorts(spec: unknown): number[] {
  const problem = portsProblem(typeof spec === 'string' ? spec : undefined);
  if (problem) throw new Error(problem);
  const text = typeof spec === 'string' && spec.trim() ? spec.trim() : 'top';
  if (text === 'top') return [...TOP_PORTS];
  if (text === 'all') return Array.from({ length: 65535 }, (_, i) => i + 1);
  const top = /^top:(\d+)$/.exec(text);
  if (top) return TOP_PORTS.slice(0, Math.max(1, Number(top[1])));
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [from, to = from] = part.trim().split('-').map(Number) as [number, number?];
    for (let p = from; p <= to; p++) out.add(p);
  }
  return [...out];
}
