import test from 'ava';
import { createTestApp } from '../../_helpers/harness/test-app.ts';
import { openSse } from '../../_helpers/receivers/sse-client.ts';

test('open streams end cleanly when the app stops', async (t) => {
  const t0 = await createTestApp({ server: { shutdownTimeoutMs: 30000 } });
  try {
    await t0.app.start();
    const a = await t0.tenant();
    const clients = await Promise.all([1, 2, 3].map(() => openSse(`${t0.server.info.uri}/api/events/stream`, { authorization: `Bearer ${a.token}` })));
    await Promise.all(clients.map((c) => c.waitFor((m) => m.length >= 1)));
    await t0.app.stop();
    // Ended by the server (final chunk sent), not cut off when the shutdown timeout ran out.
    t.deepEqual(await Promise.all(clients.map((c) => c.ended)), [true, true, true]);
    t.is(t0.ctx.streamHub.size, 0);
  } finally {
    await t0.close();
  }
});
