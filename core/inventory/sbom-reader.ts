import { PayloadTooLargeError } from '../errors.ts';
import { ImportFileError } from '../imports/import-file-error.ts';
import type { TextSource } from '../imports/import-result.ts';
import { jsonPath, type PathPart } from '../imports/json-path.ts';
import { JsonWalker } from '../imports/json-walker.ts';
import { cycloneDxHeader, readCycloneDxComponent, readCycloneDxDependency } from './cyclonedx-reader.ts';
import { fail, type ParsedSbom, type SbomComponent, type SbomEdge, type SbomFormat } from './sbom-model.ts';
import { readSpdxElementId, readSpdxPackage, readSpdxRelationship, spdxHeader } from './spdx-reader.ts';

export interface SbomLimits {
  maxItemChars: number;
  maxSkeletonChars: number;
  /** Most components in one document (413 above). */
  maxComponents: number;
}

// The arrays whose entries are read one at a time; everything else is the (small) header.
const ITEMS = new Set(['components', 'dependencies', 'packages', 'relationships', 'files', 'snippets']);
const isItem = (path: readonly PathPart[]) => path.length === 2 && typeof path[1] === 'number' && ITEMS.has(path[0] as string);

/**
 * Reads a CycloneDX (1.4-1.6) or SPDX (2.3) JSON document in one streamed pass, in memory
 * bounded by the largest entry, the header and what is kept per component. Which format it
 * is comes from the header (bomFormat / spdxVersion), wherever in the document it stands;
 * entries are checked as they pass, by the array they are in. Anything wrong is an
 * ImportFileError naming the JSON path or the line; references are resolved at the end,
 * so an edge to a component that is not in the document is refused too.
 */
export async function readSbom(text: TextSource, limits: SbomLimits): Promise<ParsedSbom> {
  const walker = new JsonWalker(isItem, limits);
  const cdx: SbomComponent[] = [];
  const spdx: SbomComponent[] = [];
  const cdxEdges: SbomEdge[] = [];
  const spdxEdges: SbomEdge[] = [];
  const described: string[] = [];
  const otherIds = new Set<string>();
  const count = () => {
    if (cdx.length + spdx.length > limits.maxComponents) {
      throw new PayloadTooLargeError(`An SBOM may list at most ${limits.maxComponents} components; nothing was recorded.`, { max_components: limits.maxComponents });
    }
  };
  for await (const { value, path } of walker.items(text)) {
    switch (path[0]) {
      case 'components': readCycloneDxComponent(value, path, cdx); count(); break;
      case 'dependencies': readCycloneDxDependency(value, path, cdxEdges); break;
      case 'packages': readSpdxPackage(value, path, spdx); count(); break;
      case 'relationships': readSpdxRelationship(value, path, spdxEdges, described); break;
      default: readSpdxElementId(value, path, otherIds);
    }
  }
  const doc = walker.skeleton;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ImportFileError('an SBOM is a JSON object', '$');
  const header = doc as Record<string, unknown>;
  if (header.bomFormat === 'CycloneDX') {
    const h = cycloneDxHeader(header);
    return resolve('cyclonedx', h.specVersion, h.tool, h.subject, cdx, cdxEdges, h.subject?.ref ? [h.subject.ref] : [], new Set());
  }
  if (typeof header.spdxVersion === 'string') {
    const h = spdxHeader(header);
    const roots = [...new Set([...h.described, ...described])];
    // One described package is the subject (the application), as CycloneDX's metadata.component;
    // when a document describes several, they stay components.
    const subjectIndex = roots.length === 1 ? spdx.findIndex((c) => c.ref === roots[0]) : -1;
    const subject = subjectIndex >= 0 ? spdx.splice(subjectIndex, 1)[0]! : null;
    return resolve('spdx', h.specVersion, h.tool, subject && { name: subject.name, version: subject.version }, spdx, spdxEdges, subject ? [subject.ref] : [], otherIds);
  }
  return fail('this is neither a CycloneDX document (bomFormat "CycloneDX") nor an SPDX document (spdxVersion): Rampart reads CycloneDX 1.4-1.6 and SPDX 2.3 JSON', []);
}

function resolve(
  format: SbomFormat, specVersion: string, tool: string | null, subject: { name: string; version: string | null } | null,
  components: SbomComponent[], edges: SbomEdge[], roots: string[], ignored: Set<string>,
): ParsedSbom {
  const index = new Map<string, number>();
  components.forEach((c, i) => {
    if (index.has(c.ref)) throw new ImportFileError(`two components have the reference "${c.ref}"`, null);
    index.set(c.ref, i);
  });
  const rootSet = new Set(roots);
  const direct = new Set<number>();
  const seen = new Set<string>();
  const out: ParsedSbom['edges'] = [];
  for (const e of edges) {
    const known = (ref: string) => index.has(ref) || rootSet.has(ref) || ignored.has(ref) || ref === 'SPDXRef-DOCUMENT';
    if (!known(e.parent)) throw new ImportFileError(`names "${e.parent}", which no component of the document has`, jsonPath(e.where));
    if (!known(e.child)) throw new ImportFileError(`names "${e.child}", which no component of the document has`, jsonPath(e.where));
    const parent = index.get(e.parent);
    const child = index.get(e.child);
    if (child === undefined) continue;
    if (rootSet.has(e.parent)) direct.add(child);
    else if (parent !== undefined && parent !== child && !seen.has(`${parent} ${child}`)) {
      seen.add(`${parent} ${child}`);
      out.push({ parent, child });
    }
  }
  return { format, specVersion, subject, tool, components, edges: out, direct };
}
