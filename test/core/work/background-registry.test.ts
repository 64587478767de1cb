import test from 'ava';
import { BackgroundRegistry, type BackgroundService } from '../../../core/work/background-registry.ts';
import type { Role } from '../../../core/work/roles.ts';

function registry(log: string[]): BackgroundRegistry {
  const service = (name: string, roles: Role[]): BackgroundService => ({
    name,
    roles,
    start: async () => void log.push(`start ${name}`),
    stop: async () => void log.push(`stop ${name}`),
  });
  return new BackgroundRegistry()
    .register(service('stream-hub', ['api']))
    .register(service('webhooks', ['worker']))
    .register(service('exports', ['worker']))
    .register(service('scans:worker', ['worker']))
    .register(service('scans:scheduler', ['scheduler']));
}

test('each role starts its own services, in registration order', async (t) => {
  const log: string[] = [];
  const r = registry(log);
  t.deepEqual(r.forRoles(['api']).map((s) => s.name), ['stream-hub']);
  t.deepEqual(await r.start(['worker']), ['webhooks', 'exports', 'scans:worker']);
  t.deepEqual(log, ['start webhooks', 'start exports', 'start scans:worker']);
  t.true(r.isStarted('exports'));
  t.false(r.isStarted('stream-hub'));
  t.deepEqual(await r.start(['worker', 'scheduler']), ['scans:scheduler'], 'what runs already is not started twice');
  t.deepEqual(await r.start(['api', 'worker', 'scheduler']), ['stream-hub']);
});

test('stop stops every service, newest first, started by the registry or not', async (t) => {
  const log: string[] = [];
  const r = registry(log);
  await r.start(['scheduler']);
  log.length = 0;
  await r.stop();
  t.deepEqual(log, ['stop scans:scheduler', 'stop scans:worker', 'stop exports', 'stop webhooks', 'stop stream-hub']);
  t.false(r.isStarted('scans:scheduler'));
});

test('a name is registered once', (t) => {
  const r = registry([]);
  t.throws(() => r.register({ name: 'exports', roles: ['worker'], start() {}, stop() {} }), { message: /registered twice/ });
  t.deepEqual(r.names, ['stream-hub', 'webhooks', 'exports', 'scans:worker', 'scans:scheduler']);
});
