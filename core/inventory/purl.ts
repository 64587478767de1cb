/** A package URL taken apart (https://github.com/package-url/purl-spec), values decoded. */
export interface PackageUrl {
  type: string;
  namespace: string | null;
  name: string;
  version: string | null;
  /** `pkg:type/namespace/name`: the package whatever its version, qualifiers or subpath. */
  base: string;
}

// The purl spec makes names of these types case-insensitive (and PyPI's `_` and `-` the same).
const LOWER_CASE_TYPES = new Set(['npm', 'pypi', 'github', 'bitbucket', 'composer', 'hex']);

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error(`"${part}" has a malformed percent-encoding`);
  }
}

// purl-spec: segments are percent-encoded except these characters.
const encode = (s: string) => encodeURIComponent(s).replace(/%3A/gi, ':');

/**
 * Parses `pkg:type/namespace/name@version?qualifiers#subpath`. Throws an Error whose
 * message says what is wrong. `@` in a namespace (pkg:npm/@scope/x, which some generators
 * write unencoded) is read as the encoded form would be.
 */
export function parsePurl(text: string): PackageUrl {
  if (!/^pkg:/i.test(text)) throw new Error('a package URL starts with "pkg:"');
  let rest = text.slice(4).replace(/^\/+/, '');
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  let version: string | null = null;
  const at = rest.lastIndexOf('@');
  if (at > rest.lastIndexOf('/')) {
    version = decode(rest.slice(at + 1)) || null;
    rest = rest.slice(0, at);
  }
  const segments = rest.split('/').filter((s) => s.length > 0);
  if (segments.length < 2) throw new Error('a package URL names a type and a package: pkg:type/name');
  const type = segments[0]!.toLowerCase();
  if (!/^[a-z.+-][a-z0-9.+-]*$/.test(type)) throw new Error(`"${segments[0]}" is not a package URL type`);
  let names = segments.slice(1).map(decode);
  if (LOWER_CASE_TYPES.has(type)) names = names.map((n) => n.toLowerCase());
  if (type === 'pypi') names = names.map((n) => n.replace(/[_.]+/g, '-'));
  const name = names[names.length - 1]!;
  const namespace = names.length > 1 ? names.slice(0, -1).join('/') : null;
  return { type, namespace, name, version, base: `pkg:${type}/${names.map(encode).join('/')}` };
}

/** The parsed package URL, or null when the text is not one. */
export function tryParsePurl(text: unknown): PackageUrl | null {
  if (typeof text !== 'string') return null;
  try {
    return parsePurl(text);
  } catch {
    return null;
  }
}
