type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** What a result needs of its run: the tool, its rules, artifacts and where the code came from. */
export interface SarifRun {
  toolName: string;
  toolVersion: string | null;
  /** Rules of the driver by index, and by id (first one wins). */
  rules: Json[];
  rulesById: Map<string, Json>;
  /** Rules of the tool's extensions (CodeQL query packs), by extension index. */
  extensionRules: Json[][];
  /** `artifacts[i].location.uri`, for results that name an artifact by index only. */
  artifactUris: Array<string | null>;
  /** The run's repository (versionControlProvenance): the target mapped to an asset. */
  repositoryUri: string | null;
  /** When the analysis ended (invocations), as epoch ms. */
  finishedAt: number | null;
}

function rulesOf(component: unknown): Json[] {
  return isObject(component) ? arrayOf(component.rules).filter(isObject) : [];
}

function indexById(rules: Json[]): Map<string, Json> {
  const byId = new Map<string, Json>();
  for (const rule of rules) if (typeof rule.id === 'string' && !byId.has(rule.id)) byId.set(rule.id, rule);
  return byId;
}

/** The context of `runs[i]` from the document (its `results` are not needed and may be absent). */
export function sarifRun(run: unknown): SarifRun {
  const r = isObject(run) ? run : {};
  const tool = isObject(r.tool) ? r.tool : {};
  const driver = isObject(tool.driver) ? tool.driver : {};
  const rules = rulesOf(driver);
  const invocation = arrayOf(r.invocations).find(isObject);
  const ended = invocation && typeof invocation.endTimeUtc === 'string' ? Date.parse(invocation.endTimeUtc) : NaN;
  const provenance = arrayOf(r.versionControlProvenance).find(isObject);
  return {
    toolName: typeof driver.name === 'string' && driver.name ? driver.name : 'unknown',
    toolVersion: typeof driver.semanticVersion === 'string' ? driver.semanticVersion : typeof driver.version === 'string' ? driver.version : null,
    rules,
    rulesById: indexById(rules),
    extensionRules: arrayOf(tool.extensions).map(rulesOf),
    artifactUris: arrayOf(r.artifacts).map((a) => (isObject(a) && isObject(a.location) && typeof a.location.uri === 'string' ? a.location.uri : null)),
    repositoryUri: provenance && typeof provenance.repositoryUri === 'string' ? provenance.repositoryUri : null,
    finishedAt: Number.isFinite(ended) ? ended : null,
  };
}

/**
 * The rule a result refers to (SARIF §3.27.7): `rule.toolComponent.index` picks an
 * extension, `rule.index`/`ruleIndex` a position, else `rule.id`/`ruleId` (a hierarchical
 * id like `CA2101/1` falls back to its first part). Null when the run does not describe it.
 */
export function ruleOf(result: Json, run: SarifRun): Json | null {
  const ref = isObject(result.rule) ? result.rule : {};
  const component = isObject(ref.toolComponent) && typeof ref.toolComponent.index === 'number' ? run.extensionRules[ref.toolComponent.index] : undefined;
  const rules = component ?? run.rules;
  const index = typeof ref.index === 'number' ? ref.index : typeof result.ruleIndex === 'number' ? result.ruleIndex : -1;
  if (index >= 0 && rules[index]) return rules[index]!;
  const id = typeof ref.id === 'string' ? ref.id : typeof result.ruleId === 'string' ? result.ruleId : null;
  if (id === null) return null;
  const byId = component ? indexById(component) : run.rulesById;
  return byId.get(id) ?? byId.get(id.split('/')[0]!) ?? null;
}
