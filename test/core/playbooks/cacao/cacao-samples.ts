import type { ActionVersion, ParameterSpec } from '../../../../core/actions/action-version.ts';
import type { PlaybookDefinition } from '../../../../core/playbooks/playbook-types.ts';

/** Action versions and playbooks for the pure converter tests (no database). */
function action(name: string, type: string, executor: ActionVersion['executor'], config: Record<string, unknown>, parameters: ParameterSpec[] = []): ActionVersion {
  return {
    actionId: `act_${name.toUpperCase().replace(/[^A-Z]/g, '').padEnd(26, '0').slice(0, 26)}`,
    tenantId: 'ten_1', name, view: 'reference', enabled: true, versionId: 'ver_1', version: '1.0.0', type, description: `${name} action`,
    executor, config, parameters, inputMapping: null, timeoutSeconds: 30, retry: { maxAttempts: 1, backoffSeconds: 0 },
  };
}

export const ACTIONS: Record<string, ActionVersion> = {
  block: action('block-ip', 'webhook', { type: 'webhook', method: 'POST' }, {
    url: 'https://firewall.example.com/api/block/{{ ip }}', method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer {{ token }}' }, body_template: '{"ip": "{{ ip }}", "why": "{{ reason }}"}',
  }, [{ name: 'ip', type: 'string', required: true }, { name: 'reason', type: 'string', required: false, default: 'rampart' }, { name: 'token', type: 'secret', required: true, credential: 'fw_token' }]),
  loopback: action('loopback-hook', 'webhook', { type: 'webhook', method: 'PUT' }, { url: 'http://127.0.0.1:8080/hook', method: 'PUT', headers: {}, body_template: '{"count": {{ count }}}' }, [{ name: 'count', type: 'integer', required: true }]),
  remote: action('enrich', 'remediation', { type: 'remote', target: 'https://enrich.example.org/v1/run', method: 'POST' }, { target: 'https://enrich.example.org/v1/run', method: 'POST' }, [{ name: 'host', type: 'string', required: true }]),
  approve: action('approve-block', 'approval', { type: 'local' }, { required_approvals: 1, approvers: {}, expires_in_seconds: 86400, on_expiry: 'fail', message: 'Block {{ ip }}?' }, [{ name: 'ip', type: 'string', required: true }]),
  exec: action('isolate-host', 'remediation', { type: 'local', target: 'isolate.sh' }, { target: 'isolate.sh' }),
  agentExec: action('agent-collect', 'remediation', { type: 'agent', target: 'dc-1' }, { target: 'dc-1', script: 'collect.sh' }),
  script: action('js-check', 'script', { type: 'local' }, { source: 'return { ok: true };' }),
  notify: action('mail-soc', 'notification', { type: 'local' }, { channel: 'email', to: ['soc@example.com'], subject: 'Blocked', body_template: 'done' }),
};

/** Every step type, every command mapping, a one-branch parallel and branches that rejoin. */
export const EVERY_STEP: PlaybookDefinition = {
  name: 'Contain a host',
  version: '1.2.0',
  description: 'All step types',
  trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } },
  on_failure: 'abort',
  timeout_minutes: 30,
  tags: ['containment', 'mitigation'],
  parameters: { ip: '198.51.100.7', limit: 3, dry: false, extra: { a: 1 } },
  steps: [
    { id: 'check', name: 'Is it severe', type: 'condition', if: { 'parameters.ip': { matches: '^198\\.' }, 'event.data.severity': 'critical' }, on_true: 'approve', on_false: 'enrich' },
    { id: 'approve', name: 'Ask', type: 'action', action_ref: 'approve-block', parameters: { ip: '{{ parameters.ip }}' }, on_success: 'fan' },
    { id: 'fan', name: 'Fan out', type: 'parallel', next_steps: ['block', 'isolate'], on_success: 'notify' },
    { id: 'block', name: 'Block', type: 'action', action_ref: 'block-ip', parameters: { ip: '{{ parameters.ip }}', reason: 'finding {{ finding.title }}' }, on_success: null },
    { id: 'isolate', name: 'Isolate', type: 'action', action_ref: 'act_ISOLATEHOST000000000000000', parameters: {}, on_success: 'collect' },
    { id: 'collect', name: 'Collect', type: 'action', action_ref: 'agent-collect@1.0.0', parameters: {} },
    { id: 'enrich', name: 'Enrich', type: 'action', action_ref: 'enrich', parameters: { host: '{{ asset.name }}' }, on_success: 'one' },
    { id: 'one', name: 'One branch', type: 'parallel', next_steps: ['js'], on_success: 'notify' },
    { id: 'js', name: 'JS', type: 'action', action_ref: 'js-check', parameters: {} },
    { id: 'notify', name: 'Notify', type: 'action', action_ref: 'mail-soc', parameters: {}, on_success: 'hook' },
    { id: 'hook', name: 'Hook', type: 'action', action_ref: 'loopback-hook', parameters: { count: '{{ parameters.limit }}' } },
  ],
};

export const REFS: Record<string, ActionVersion> = {
  'approve-block': ACTIONS.approve!,
  'block-ip': ACTIONS.block!,
  act_ISOLATEHOST000000000000000: ACTIONS.exec!,
  'agent-collect@1.0.0': ACTIONS.agentExec!,
  enrich: ACTIONS.remote!,
  'js-check': ACTIONS.script!,
  'mail-soc': ACTIONS.notify!,
  'loopback-hook': ACTIONS.loopback!,
};
