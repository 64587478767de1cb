export type ChangeKind = 'added' | 'removed' | 'upgraded' | 'downgraded' | 'changed';

/** What the diff needs of a component: its package key and version. */
export interface KeyedVersion {
  key: string;
  name: string;
  purlBase: string | null;
  version: string | null;
}

export interface InventoryChange {
  change: ChangeKind;
  name: string;
  purlBase: string | null;
  oldVersion: string | null;
  newVersion: string | null;
}

/**
 * The package a component is across uploads: its package URL without version, else its
 * group and name (lower-cased). Two uploads of the same application list the same
 * package under the same key whatever its version.
 */
export function packageKey(c: { purlBase: string | null; group: string | null; name: string }): string {
  return c.purlBase ?? `name:${c.group ? `${c.group.toLowerCase()}/` : ''}${c.name.toLowerCase()}`;
}

const NUMERIC = /^\d+$/;

/**
 * Orders two versions by their dotted/dashed parts, numbers as numbers (1.10 > 1.9,
 * 2.0.0-rc.1 < 2.0.0, as semver and most distributions mean them). Null when the
 * versions share no comparable shape (different lettered parts at the first difference).
 */
export function compareVersions(a: string, b: string): number | null {
  const [coreA, preA] = splitPre(a);
  const [coreB, preB] = splitPre(b);
  const pa = coreA.split(/[.\-+_:~]/);
  const pb = coreB.split(/[.\-+_:~]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    if (x === y) continue;
    if (NUMERIC.test(x) && NUMERIC.test(y)) return Number(x) < Number(y) ? -1 : 1;
    return null;
  }
  if (preA === preB) return 0;
  if (!preA) return 1; // a release is newer than its pre-releases
  if (!preB) return -1;
  return compareVersions(preA, preB);
}

function splitPre(v: string): [string, string] {
  const s = v.replace(/^v(?=\d)/i, '');
  const dash = s.search(/-(?=[A-Za-z])/);
  return dash >= 0 ? [s.slice(0, dash), s.slice(dash + 1)] : [s, ''];
}

/**
 * Changes from one inventory to the next, package by package: versions only in the new
 * one are added, only in the old one removed; one version replaced by one other is an
 * upgrade, a downgrade, or `changed` when the two cannot be ordered.
 */
export function diffInventories(before: KeyedVersion[], after: KeyedVersion[]): InventoryChange[] {
  const group = (list: KeyedVersion[]) => {
    const out = new Map<string, KeyedVersion[]>();
    for (const c of list) out.set(c.key, [...(out.get(c.key) ?? []), c]);
    return out;
  };
  const old = group(before);
  const now = group(after);
  const changes: InventoryChange[] = [];
  for (const key of new Set([...old.keys(), ...now.keys()])) {
    const a = old.get(key) ?? [];
    const b = now.get(key) ?? [];
    const bVersions = new Set(b.map((c) => c.version ?? ''));
    const aVersions = new Set(a.map((c) => c.version ?? ''));
    const gone = a.filter((c) => !bVersions.has(c.version ?? ''));
    const came = b.filter((c) => !aVersions.has(c.version ?? ''));
    if (gone.length === 1 && came.length === 1) {
      const from = gone[0]!;
      const to = came[0]!;
      const order = from.version && to.version ? compareVersions(from.version, to.version) : null;
      const change: ChangeKind = order === null || order === 0 ? 'changed' : order < 0 ? 'upgraded' : 'downgraded';
      changes.push({ change, name: to.name, purlBase: to.purlBase, oldVersion: from.version, newVersion: to.version });
      continue;
    }
    for (const c of gone) changes.push({ change: 'removed', name: c.name, purlBase: c.purlBase, oldVersion: c.version, newVersion: null });
    for (const c of came) changes.push({ change: 'added', name: c.name, purlBase: c.purlBase, oldVersion: null, newVersion: c.version });
  }
  return changes;
}
