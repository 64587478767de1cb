import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger } from '../../core/logger.ts';
import { createTestApp } from '../_helpers/harness/test-app.ts';

function capture(): { stream: Writable; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

test('secret-named keys are redacted wherever they appear', (t) => {
  const out = capture();
  const logger = createLogger('info', out.stream);
  logger.info({ password: 'p1', token: 't1', req: { headers: { authorization: 'Bearer a1', cookie: 'c1' } }, webhook: { secret: 's1' }, deep: { x: { api_key: 'k1' } } }, 'hello');
  for (const secret of ['p1', 't1', 'Bearer a1', 'c1', 's1', 'k1']) t.false(out.text().includes(secret), secret);
  t.true(out.text().includes('[redacted]'));
});

test('access log lines carry request id, path without query, status; never tokens', async (t) => {
  const out = capture();
  const app = await createTestApp({ log: { level: 'info' } }, { logger: createLogger('info', out.stream) });
  t.teardown(() => app.close());
  await app.request('GET', `/api/user/me?token=${app.adminToken}`, { token: null, headers: { 'x-request-id': 'log-test-1' } });
  await app.request('GET', '/api/user/me');
  const lines = out.text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = lines.find((l) => l.req_id === 'log-test-1');
  t.like(line, { method: 'GET', path: '/api/user/me', status: 401 });
  t.false(out.text().includes(app.adminToken));
  t.false(out.text().includes('rmp_'));
});
