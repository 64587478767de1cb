import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { openSse } from '../_helpers/receivers/sse-client.ts';

// The event stream as a spec-only client opens it: `?token=`, `events`, `asset_id`,
// `Accept: text/event-stream`, then `Last-Event-ID` on reconnection.
let t0: TestApp;
let base: string;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  await t0.app.start();
  base = t0.server.info.uri;
  ({ token } = await t0.tenant());
});
test.after.always(async () => t0?.close());

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });

test('open → events as they happen (event, id, data) → filters → replay after Last-Event-ID', async (t) => {
  const stream = await openSse(`${base}/api/events/stream?token=${token}&events=asset.created,finding.new`);
  t.is(stream.statusCode, 200);
  t.regex(String(stream.headers['content-type']), /^text\/event-stream/);
  await stream.waitFor((m) => m.some((x) => x.retry !== null));
  const created = await call('POST', '/api/assets', { name: '198.51.100.60', type: 'ip' });
  const assetId = created.body.data.id;
  await call('POST', '/api/findings', { asset_id: assetId, title: 'Telnet open', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
  const got = await stream.waitFor((m) => m.some((x) => x.event === 'finding.new'), 10_000);
  stream.close();
  const platform = got.filter((m) => m.event !== 'heartbeat' && m.retry === null && m.event);
  t.deepEqual(platform.map((m) => m.event), ['asset.created', 'finding.new']);
  for (const m of platform) t.truthy(m.id, 'every message has an id');
  const finding = JSON.parse(platform[1]!.data);
  t.like(finding, { title: 'Telnet open', severity: 'critical' });
  t.is(typeof finding.finding_id, 'string');

  // Reconnect after the first event: the buffered ones after it are replayed.
  const again = await openSse(`${base}/api/events/stream?events=asset.created,finding.new&asset_id=${assetId}`, { authorization: `Bearer ${token}`, 'last-event-id': platform[0]!.id! });
  const replayed = await again.waitFor((m) => m.some((x) => x.event === 'finding.new'), 10_000);
  again.close();
  t.deepEqual(replayed.filter((m) => m.event === 'finding.new').map((m) => m.id), [platform[1]!.id]);
  t.false(replayed.some((m) => m.event === 'asset.created'), 'nothing up to Last-Event-ID is sent again');
});

test('a wrong token is 401', async (t) => {
  t.is((await t0.request('GET', '/api/events/stream?token=wrong', { token: null })).statusCode, 401);
});
