// The three HTTP executors load through the real plugin loader: manifests valid for API
// 1.3, executor kinds registered, the notification SMTP settings accepted and redacted.
import test from 'ava';
import { loadPlugins } from '../../../core/plugins/load-plugins.ts';
import { redactOptions } from '../../../core/plugins/options-validator.ts';

test('remote, webhook and notification load as built-in executors with their kinds', async (t) => {
  const smtp = { host: 'mail.example.test', port: 587, starttls: true, user: 'u', password: 'p-canary', from: 'r@example.test' };
  const registry = await loadPlugins({ builtin: ['remote', 'webhook', 'notification'], builtinOptions: { notification: { smtp } }, external: [], baseDir: '.' });
  t.deepEqual(registry.executors().map((e) => e.plugin.executorKind).sort(), ['notification', 'remote', 'webhook']);
  for (const kind of ['remote', 'webhook', 'notification']) t.deepEqual(registry.executorFor(kind)!.capabilities, ['net:outbound', 'secrets:read']);
  const loaded = registry.get('notification')!;
  t.deepEqual(loaded.options, { smtp });
  t.deepEqual(redactOptions(loaded.plugin.options, loaded.options), { smtp: '[redacted]' });
});

test('an unknown notification setting stops start-up', async (t) => {
  await t.throwsAsync(() => loadPlugins({ builtin: ['notification'], builtinOptions: { notification: { smpt: {} } }, external: [], baseDir: '.' }), { message: /notification.*smpt/ });
});
