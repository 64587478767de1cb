import type { ReferenceActionInput } from '../../actions/action-draft.ts';
import { HTTP_METHODS } from '../../actions/action-config-rules.ts';
import { MAX_TIMEOUT_SECONDS } from '../../actions/action-kinds.ts';
import type { ParameterSpec } from '../../actions/action-version.ts';
import type { FieldProblem } from '../../errors.ts';
import type { CacaoAgentTarget, CacaoCommand, CacaoPlaybook, CacaoStep } from './cacao-types.ts';
import { cacaoRefsToPlaybook, cacaoToTemplate, fromVariable, parameterTypeOf, variableKey } from './cacao-variables.ts';

/**
 * Import side: one CACAO command as a Rampart action (reference view) plus the step
 * parameters that feed it. `http-api` becomes a webhook action (the agent's or an
 * http-api target's address, the start line's method and path, headers, body);
 * `manual` becomes an approval action (the command text is its message). Each
 * `__name__:value` in them becomes an action parameter `{{ name }}`, fed by the step
 * variable of that name (its value) or else the playbook variable (`{{ parameters.name }}`).
 * Every other command type is refused: Rampart does not run imported command lines.
 */
export interface ConvertedCommand {
  input: ReferenceActionInput;
  parameters: Record<string, unknown>;
}

const ACTION_PARAMETER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

/** `http(s)://host[:port]` and a path prefix for an http-api agent or target, or a reason it has none. */
function endpointOf(def: CacaoAgentTarget): { base: string } | { problem: string } {
  if (def.authentication_info) return { problem: `${def.name}: authentication_info is not imported (Rampart keeps credentials in its credential store; add a secret parameter to the action by hand)` };
  const address = def.address ?? {};
  const url = address.url?.[0];
  if (url) {
    const m = /^(https?):\/\/([^/:?#]+)(?::(\d+))?([^?#]*)$/i.exec(url.startsWith('http') ? url : `https://${url}`);
    if (!m) return { problem: `${def.name}: address.url ${url} is not an http(s) URL` };
    const scheme = m[1]!.toLowerCase();
    const port = m[3] ?? (def.port && def.port !== (scheme === 'https' ? '443' : '80') ? def.port : undefined);
    return { base: `${scheme}://${m[2]}${port ? `:${port}` : ''}${m[4]!.replace(/\/$/, '')}` };
  }
  const host = address.dname?.[0] ?? address.ipv4?.[0] ?? (address.ipv6?.[0] ? `[${address.ipv6[0]}]` : undefined);
  if (!host) return { problem: `${def.name}: no url, dname, ipv4 or ipv6 address` };
  // Without a URL the scheme is not written down: CACAO's default port 80 (and 8080) is http, any other https.
  const port = def.port ?? '80';
  const scheme = port === '80' || port === '8080' ? 'http' : 'https';
  return { base: `${scheme}://${host}${port === (scheme === 'https' ? '443' : '80') ? '' : `:${port}`}` };
}

export function convertCommand(doc: CacaoPlaybook, stepId: string, step: CacaoStep, command: CacaoCommand, name: string, problems: FieldProblem[]): ConvertedCommand | null {
  const fail = (message: string) => { problems.push({ field: stepId, message }); return null; };
  const names = new Set<string>();
  const description = command.description ?? step.description ?? `Imported from CACAO step ${stepId}.`;
  let partial: Omit<ReferenceActionInput, 'parameters'>;
  if (command.type === 'http-api') {
    const line = /^([A-Za-z]+)\s+(\S+)(?:\s+HTTP\/[\d.]+)?\s*$/.exec(command.command ?? '');
    if (!line) return fail(`http-api command "${command.command ?? ''}" is not an HTTP start line (METHOD /path HTTP/1.1)`);
    const method = line[1]!.toUpperCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method)) return fail(`http-api method ${method} is not supported (${HTTP_METHODS.join(', ')})`);
    let url: string;
    if (/^https?:\/\//i.test(line[2]!)) {
      url = line[2]!;
    } else {
      const candidates = [step.agent ? doc.agent_definitions?.[step.agent] : undefined, ...(step.targets ?? []).map((t) => doc.target_definitions?.[t])];
      const def = candidates.find((d) => d?.type === 'http-api');
      if (!def) return fail('an http-api command needs an http-api agent or target with an address');
      const endpoint = endpointOf(def);
      if ('problem' in endpoint) return fail(endpoint.problem);
      url = `${endpoint.base}${line[2]!.startsWith('/') ? '' : '/'}${line[2]}`;
    }
    const config: Record<string, unknown> = { url: cacaoToTemplate(url, names), method };
    if (command.headers && Object.keys(command.headers).length) {
      config.headers = Object.fromEntries(Object.entries(command.headers).map(([k, v]) => [k, cacaoToTemplate(v.join(', '), names)]));
    }
    const body = command.content ?? (command.content_b64 !== undefined ? decode(command.content_b64) : undefined);
    if (body !== undefined) config.body_template = cacaoToTemplate(body, names);
    partial = { name, type: 'webhook', executor: 'webhook', description, config };
  } else if (command.type === 'manual') {
    const text = command.command ?? (command.command_b64 !== undefined ? decode(command.command_b64) : '');
    partial = { name, type: 'approval', executor: 'local', description, config: { message: cacaoToTemplate(text || description, names) } };
  } else {
    return fail(`command type ${command.type} is not supported: Rampart imports http-api (as webhook actions) and manual (as approval actions) and does not run imported command lines`);
  }
  if (step.timeout !== undefined && step.timeout > 0) partial.timeout_seconds = Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil(step.timeout / 1000)));

  const playbookVariables = new Set(Object.keys(doc.playbook_variables ?? {}).map((k) => k.slice(2, -2)));
  const specs: ParameterSpec[] = [];
  const parameters: Record<string, unknown> = {};
  let ok = true;
  for (const n of names) {
    if (!ACTION_PARAMETER.test(n)) { fail(`variable ${variableKey(n)} cannot name a Rampart action parameter (letters, digits and _ only)`); ok = false; continue; }
    const local = step.step_variables?.[variableKey(n)];
    const global = doc.playbook_variables?.[variableKey(n)];
    if (local) {
      const unknown = new Set<string>();
      const raw = fromVariable(local);
      const value = typeof raw === 'string' ? cacaoRefsToPlaybook(raw, playbookVariables, unknown) : raw;
      for (const u of unknown) { fail(`variable ${variableKey(u)} (in ${variableKey(n)}) is not a playbook variable`); ok = false; }
      specs.push({ name: n, type: parameterTypeOf(local.type), required: value !== null });
      if (value !== null) parameters[n] = value;
    } else if (global) {
      specs.push({ name: n, type: parameterTypeOf(global.type), required: true });
      parameters[n] = `{{ parameters.${n} }}`;
    } else {
      fail(`variable ${variableKey(n)} is used but declared neither in step_variables nor in playbook_variables`);
      ok = false;
    }
  }
  return ok ? { input: { ...partial, parameters: specs }, parameters } : null;
}
