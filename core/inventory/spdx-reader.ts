import type { PathPart } from '../imports/json-path.ts';
import { parsePurl } from './purl.ts';
import { arrayAt, fail, FIELD_LIMITS, objectAt, optionalString, requiredString, type SbomComponent, type SbomEdge } from './sbom-model.ts';

export const SPDX_VERSIONS = ['SPDX-2.3'];

// Relationship types that make an edge: DEPENDS_ON points from the dependant, the *_OF ones from the dependency.
const DEPENDS_ON = new Set(['DEPENDS_ON']);
const DEPENDENCY_OF = new Set(['DEPENDENCY_OF', 'DEV_DEPENDENCY_OF', 'OPTIONAL_DEPENDENCY_OF', 'BUILD_DEPENDENCY_OF', 'RUNTIME_DEPENDENCY_OF', 'PROVIDED_DEPENDENCY_OF', 'TEST_DEPENDENCY_OF']);
const NO_VALUE = new Set(['NOASSERTION', 'NONE', '']);

/** One entry of `packages`. */
export function readSpdxPackage(value: unknown, path: readonly PathPart[], out: SbomComponent[]): void {
  const p = objectAt(value, path);
  const ref = requiredString(p.SPDXID, [...path, 'SPDXID'], 1024);
  const name = requiredString(p.name, [...path, 'name'], FIELD_LIMITS.name);
  let purl: string | null = null;
  let purlBase: string | null = null;
  arrayAt(p.externalRefs, [...path, 'externalRefs']).forEach((entry, i) => {
    const at = [...path, 'externalRefs', i];
    const r = objectAt(entry, at);
    const type = requiredString(r.referenceType, [...at, 'referenceType'], 256);
    const locator = requiredString(r.referenceLocator, [...at, 'referenceLocator'], FIELD_LIMITS.purl);
    if (type !== 'purl' || purl) return;
    try {
      purlBase = parsePurl(locator).base;
      purl = locator;
    } catch (err) {
      fail(`is not a package URL: ${(err as Error).message}`, [...at, 'referenceLocator']);
    }
  });
  const licenses = [p.licenseConcluded, p.licenseDeclared]
    .map((l, i) => optionalString(l, [...path, i === 0 ? 'licenseConcluded' : 'licenseDeclared'], FIELD_LIMITS.license))
    .filter((l): l is string => l !== null && !NO_VALUE.has(l));
  out.push({
    ref,
    name,
    group: null,
    version: optionalString(p.versionInfo, [...path, 'versionInfo'], FIELD_LIMITS.version),
    purl,
    purlBase,
    type: optionalString(p.primaryPackagePurpose, [...path, 'primaryPackagePurpose'], 32)?.toLowerCase() ?? null,
    licenses: [...new Set(licenses)],
  });
}

/** What a relationship means to the inventory: a dependency edge, a described element, or nothing. */
export function readSpdxRelationship(value: unknown, path: readonly PathPart[], edges: SbomEdge[], described: string[]): void {
  const r = objectAt(value, path);
  const element = requiredString(r.spdxElementId, [...path, 'spdxElementId'], 1024);
  const related = requiredString(r.relatedSpdxElement, [...path, 'relatedSpdxElement'], 1024);
  const type = requiredString(r.relationshipType, [...path, 'relationshipType'], 64);
  if (NO_VALUE.has(related) || related.startsWith('DocumentRef-') || element.startsWith('DocumentRef-')) return;
  if (DEPENDS_ON.has(type)) edges.push({ parent: element, child: related, where: path });
  else if (DEPENDENCY_OF.has(type)) edges.push({ parent: related, child: element, where: path });
  else if (type === 'DESCRIBES' && element === 'SPDXRef-DOCUMENT') described.push(related);
  else if (type === 'DESCRIBED_BY' && related === 'SPDXRef-DOCUMENT') described.push(element);
}

/** Files and snippets are not inventory, but relationships may name them: only their ids are kept. */
export function readSpdxElementId(value: unknown, path: readonly PathPart[], ids: Set<string>): void {
  ids.add(requiredString(objectAt(value, path).SPDXID, [...path, 'SPDXID'], 1024));
}

export function spdxHeader(doc: Record<string, unknown>): { specVersion: string; described: string[]; tool: string | null } {
  const version = doc.spdxVersion;
  if (typeof version !== 'string' || !SPDX_VERSIONS.includes(version)) {
    fail(`${String(version)} is not supported: Rampart reads SPDX 2.3 (JSON)`, ['spdxVersion']);
  }
  const described = arrayAt(doc.documentDescribes, ['documentDescribes']).map((d, i) => requiredString(d, ['documentDescribes', i], 1024));
  const creation = doc.creationInfo === undefined ? {} : objectAt(doc.creationInfo, ['creationInfo']);
  const tool = arrayAt(creation.creators, ['creationInfo', 'creators'])
    .filter((c): c is string => typeof c === 'string' && c.startsWith('Tool:'))
    .map((c) => c.slice(5).trim())
    .join(', ');
  return { specVersion: (version as string).slice(5), described, tool: tool ? tool.slice(0, 256) : null };
}
