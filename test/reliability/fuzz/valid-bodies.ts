/**
 * Known-valid bodies for operations whose schema alone rarely yields an accepted request
 * (cross-field rules the OpenAPI document cannot express). The fuzzer starts from these
 * part of the time, so its one-field mutations reach the services' own checks, not only joi.
 */
let n = 0;

const playbook = () => ({ name: `fuzz-pb-${(n += 1)}`, version: '1.0.0', trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } }, steps: [{ id: 's1', type: 'action', action_ref: 'fuzz-approve', parameters: {}, on_success: 's2' }, { id: 's2', type: 'condition', if: { 'finding.severity': { gte: 'high' } }, on_true: 's3' }, { id: 's3', type: 'action', action_ref: 'fuzz-approve' }] });

export const VALID_BODIES: Record<string, () => unknown> = {
  'POST /api/assets': () => ({ name: `10.88.${((n += 1) >> 8) & 255}.${n & 255}`, type: 'ip', tags: ['fuzz'], metadata: { owner: 'fuzz' } }),
  'PUT /api/assets/{id}': () => ({ tags: ['fuzz', `t${(n += 1)}`], metadata: { note: 'x' } }),
  'POST /api/playbooks': playbook,
  'PUT /api/playbooks/{id}': () => ({ ...playbook(), name: undefined, version: `2.${(n += 1)}.0` }),
  'PATCH /api/playbooks/{id}': () => ({ enabled: n % 2 === 0 }),
  'POST /api/integrations/siem': () => ({ name: `fuzz-siem-${(n += 1)}`, host: '127.0.0.1', port: 1, protocol: 'tcp', format: 'cef', events: ['finding.new'], active: false }),
  'PUT /api/integrations/siem/{id}': () => ({ port: 2, active: false }),
  'POST /api/webhooks': () => ({ name: `fuzz-wh-${(n += 1)}`, url: 'https://127.0.0.1:1/hook', events: ['finding.new'] }),
  'PUT /api/webhooks/{id}': () => ({ name: `fuzz-wh-${(n += 1)}`, events: ['scan.*'] }),
  'POST /api/admin/tenants/{tenant_id}/tokens': () => ({ name: `fuzz-${(n += 1)}`, scopes: ['assets:read'], expires_in_seconds: 3600 }),
  'POST /api/actions': () => ({ name: `fuzz-act-${(n += 1)}`, type: 'webhook', executor: 'webhook', parameters: [{ name: 'ip', type: 'string', validation: { pattern: '[0-9.]+' } }], config: { url: 'https://127.0.0.1:1/act/{{ ip }}', method: 'POST', body_template: '{"ip": "{{ ip }}"}' } }),
  'POST /api/actions/definitions': () => ({ name: `fuzz-def-${(n += 1)}`, version: '1.0.0', type: 'containment', executor: { type: 'local', target: 'block.sh' }, parameters: [{ name: 'ip', type: 'string', required: true }] }),
  'POST /api/actions/definitions/{id}/versions': () => ({ version: `3.${(n += 1)}.0`, type: 'approval', executor: { type: 'local' }, config: {} }),
  'PATCH /api/actions/definitions/{id}': () => ({ enabled: true }),
  'POST /api/actions/{id}/trigger': () => ({ parameters: {}, sandbox: n % 2 === 0 }),
  'POST /api/actions/{id}/execute': () => ({ parameters: {}, sandbox: true }),
  'POST /api/findings': () => ({ title: `fuzz ${(n += 1)}`, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N', tags: ['fuzz'], references: ['https://example.com/x'] }),
  'PUT /api/findings/{id}/status': () => ({ status: 'confirmed', note: 'fuzz {{ 7*7 }} =1+1' }),
  'POST /api/scan-schedules': () => ({ cron: '15 4 * * 1', scan_type: 'port', timezone: 'Europe/Paris', options: { ports: '1-1024' } }),
  'POST /api/user/auth/login': () => ({ email: 'fuzz1@example.com', password: 'a long passphrase' }),
};
