import type { PathPart } from '../imports/json-path.ts';
import { parsePurl } from './purl.ts';
import { arrayAt, fail, FIELD_LIMITS, objectAt, optionalString, requiredString, type SbomComponent, type SbomEdge } from './sbom-model.ts';

export const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6'];

/** A component's licences: SPDX ids, names or expressions (CycloneDX 1.4-1.6). */
function licensesOf(value: unknown, path: readonly PathPart[]): string[] {
  const out: string[] = [];
  arrayAt(value, path).forEach((entry, i) => {
    const at = [...path, i];
    const choice = objectAt(entry, at);
    if (choice.expression !== undefined) out.push(requiredString(choice.expression, [...at, 'expression'], FIELD_LIMITS.license));
    else if (choice.license !== undefined) {
      const license = objectAt(choice.license, [...at, 'license']);
      const named = optionalString(license.id, [...at, 'license', 'id'], FIELD_LIMITS.license) ?? optionalString(license.name, [...at, 'license', 'name'], FIELD_LIMITS.license);
      if (!named) fail('a license needs an id or a name', [...at, 'license']);
      out.push(named!);
    } else fail('a licenses entry holds a license or an expression', at);
  });
  return [...new Set(out)].slice(0, FIELD_LIMITS.licenses);
}

/**
 * One entry of `components` and the components nested in it (CycloneDX allows a tree),
 * checked and flattened. A component without a bom-ref is kept (it can have no edges).
 */
export function readCycloneDxComponent(value: unknown, path: readonly PathPart[], out: SbomComponent[]): void {
  const c = objectAt(value, path);
  requiredString(c.type, [...path, 'type'], 64);
  const name = requiredString(c.name, [...path, 'name'], FIELD_LIMITS.name);
  const purlText = optionalString(c.purl, [...path, 'purl'], FIELD_LIMITS.purl);
  let purlBase: string | null = null;
  if (purlText) {
    try {
      purlBase = parsePurl(purlText).base;
    } catch (err) {
      fail(`is not a package URL: ${(err as Error).message}`, [...path, 'purl']);
    }
  }
  out.push({
    ref: optionalString(c['bom-ref'], [...path, 'bom-ref'], 1024) ?? `#${out.length}`,
    name,
    group: optionalString(c.group, [...path, 'group'], FIELD_LIMITS.group),
    version: optionalString(c.version, [...path, 'version'], FIELD_LIMITS.version),
    purl: purlText,
    purlBase,
    type: c.type as string,
    licenses: licensesOf(c.licenses, [...path, 'licenses']),
  });
  arrayAt(c.components, [...path, 'components']).forEach((child, i) => readCycloneDxComponent(child, [...path, 'components', i], out));
}

/** One entry of `dependencies`: `{ref, dependsOn: [ref…]}`. */
export function readCycloneDxDependency(value: unknown, path: readonly PathPart[], out: SbomEdge[]): void {
  const d = objectAt(value, path);
  const parent = requiredString(d.ref, [...path, 'ref'], 1024);
  arrayAt(d.dependsOn, [...path, 'dependsOn']).forEach((child, i) => {
    out.push({ parent, child: requiredString(child, [...path, 'dependsOn', i], 1024), where: [...path, 'dependsOn', i] });
  });
}

/** The header: spec version, the subject (metadata.component) and the generating tool. */
export function cycloneDxHeader(doc: Record<string, unknown>): { specVersion: string; subject: { name: string; version: string | null; ref: string | null } | null; tool: string | null } {
  const specVersion = doc.specVersion;
  if (typeof specVersion !== 'string' || !CYCLONEDX_VERSIONS.includes(specVersion)) {
    fail(`CycloneDX ${String(specVersion)} is not supported: Rampart reads CycloneDX ${CYCLONEDX_VERSIONS.join(', ')} (JSON)`, ['specVersion']);
  }
  const metadata = doc.metadata === undefined ? {} : objectAt(doc.metadata, ['metadata']);
  let subject = null;
  if (metadata.component !== undefined) {
    const c = objectAt(metadata.component, ['metadata', 'component']);
    subject = {
      name: requiredString(c.name, ['metadata', 'component', 'name'], FIELD_LIMITS.name),
      version: optionalString(c.version, ['metadata', 'component', 'version'], FIELD_LIMITS.version),
      ref: optionalString(c['bom-ref'], ['metadata', 'component', 'bom-ref'], 1024),
    };
  }
  // 1.4: tools is [{vendor, name, version}]; 1.5+: {components: [...], services: [...]} (the array form is deprecated, still allowed).
  const tools = metadata.tools;
  const list = Array.isArray(tools) ? tools : tools && typeof tools === 'object' ? [...arrayAt((tools as Record<string, unknown>).components, ['metadata', 'tools', 'components'])] : [];
  const tool = list
    .filter((t): t is Record<string, unknown> => Boolean(t) && typeof t === 'object')
    .map((t) => [t.group ?? t.vendor, t.name, t.version].filter((v) => typeof v === 'string' && v).join(' '))
    .filter(Boolean)
    .join(', ');
  return { specVersion: specVersion as string, subject, tool: tool ? tool.slice(0, 256) : null };
}
