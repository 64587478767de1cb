import test from 'ava';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { openSse, type SseMessage } from '../../_helpers/receivers/sse-client.ts';
import { eventRepository } from '../../../core/events/event-repository.ts';
import type { StoredEventKind } from '../../../core/domain/event-kinds.ts';

let t0: TestApp;
let base: string;

test.before(async () => {
  t0 = await createTestApp();
  await t0.app.start();
  base = t0.server.info.uri;
});

test.after.always(async () => {
  await t0?.close();
});

async function publish(tenantId: string, kind: StoredEventKind, data: Record<string, unknown>, assetId: string | null = null): Promise<string> {
  const id = await t0.ctx.outbox.transaction(({ emit }) => emit({ tenantId, kind, assetId, data }));
  return String(id);
}

const platform = (messages: SseMessage[]) => messages.filter((m) => m.event !== 'heartbeat' && m.retry === null);

test('rejects a missing token, a token without events:read, and unknown kinds or malformed asset ids', async (t) => {
  t.is((await t0.request('GET', '/api/events/stream', { token: null })).statusCode, 401);
  const reader = await t0.tenant({ scopes: ['assets:read'] });
  const forbidden = await t0.request('GET', '/api/events/stream', { token: reader.token });
  t.is(forbidden.statusCode, 403);
  const bad = await t0.request('GET', '/api/events/stream?events=finding.new,nope.kind');
  t.is(bad.statusCode, 400);
  t.regex(bad.raw, /nope\.kind/);
  t.is((await t0.request('GET', '/api/events/stream?events=webhook.test')).statusCode, 400);
  t.is((await t0.request('GET', '/api/events/stream?asset_id=not-an-id')).statusCode, 400);
  t.is((await t0.request('GET', '/api/events/stream?token=wrong', { token: null })).statusCode, 401);
});

test('streams the tenant\'s own events live with event/id/data, retry once, heartbeats, identity encoding under gzip', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const client = await openSse(`${base}/api/events/stream?token=${a.token}`, { 'accept-encoding': 'gzip, deflate' });
  t.is(client.statusCode, 200);
  t.regex(String(client.headers['content-type']), /^text\/event-stream/);
  t.is(client.headers['content-encoding'], 'identity');
  await client.waitFor((m) => m.length >= 1);
  t.is(client.messages[0]!.retry, t0.config.stream.retryMs);
  await publish(b.tenantId, 'finding.new', { finding_id: 'fnd_other', title: 'Not yours', severity: 'high' });
  const id = await publish(a.tenantId, 'finding.new', { finding_id: 'fnd_mine', title: 'Weak TLS', severity: 'high' });
  const progress = await publish(a.tenantId, 'scan.progress', { scan_id: 'scn_1', progress: 40, phase: 'ssl' });
  const alert = await publish(a.tenantId, 'system.alert', { alert_type: 'webhook_disabled', message: 'Endpoint disabled' });
  await client.waitFor((m) => platform(m).length >= 3 && m.some((x) => x.event === 'heartbeat'));
  const got = platform(client.messages);
  t.deepEqual(got.map((m) => [m.event, m.id]), [['finding.new', id], ['scan.progress', progress], ['system.alert', alert]]);
  t.deepEqual(JSON.parse(got[0]!.data), { finding_id: 'fnd_mine', title: 'Weak TLS', severity: 'high' });
  t.deepEqual(JSON.parse(got[1]!.data), { scan_id: 'scn_1', progress: 40, phase: 'ssl' });
  t.deepEqual(JSON.parse(got[2]!.data), { alert_type: 'webhook_disabled', message: 'Endpoint disabled' });
  const heartbeat = client.messages.find((m) => m.event === 'heartbeat')!;
  t.is(heartbeat.id, null);
  t.true(Number.isFinite(Date.parse(JSON.parse(heartbeat.data).timestamp)));
  t.is(client.messages.filter((m) => m.retry !== null).length, 1);
  t.false(client.messages.some((m) => m.data.includes('fnd_other')));
  client.close();
});

test('events= and asset_id= filter what arrives', async (t) => {
  const a = await t0.tenant();
  const byKind = await openSse(`${base}/api/events/stream?events=scan.completed,system.alert`, { authorization: `Bearer ${a.token}` });
  const byAsset = await openSse(`${base}/api/events/stream?asset_id=ast_01JD3ZZZZZZZZZZZZZZZZZZZZZ`, { authorization: `Bearer ${a.token}` });
  await byKind.waitFor((m) => m.length >= 1);
  await byAsset.waitFor((m) => m.length >= 1);
  await publish(a.tenantId, 'finding.new', { finding_id: 'f1' }, 'ast_01JD3ZZZZZZZZZZZZZZZZZZZZZ');
  await publish(a.tenantId, 'scan.completed', { scan_id: 's1', finding_count: 1, duration: 3 }, 'ast_01JD3YYYYYYYYYYYYYYYYYYYYY');
  const last = await publish(a.tenantId, 'system.alert', { alert_type: 'x', message: 'done' });
  await byKind.waitFor((m) => platform(m).some((x) => x.id === last));
  t.deepEqual(platform(byKind.messages).map((m) => m.event), ['scan.completed', 'system.alert']);
  const marker = await publish(a.tenantId, 'scan.failed', { scan_id: 's2', error: 'boom' }, 'ast_01JD3ZZZZZZZZZZZZZZZZZZZZZ');
  await byAsset.waitFor((m) => platform(m).some((x) => x.id === marker));
  t.deepEqual(platform(byAsset.messages).map((m) => m.event), ['finding.new', 'scan.failed']);
  byKind.close();
  byAsset.close();
});

test('Last-Event-ID replays what followed, then continues live without gap or duplicate while events keep coming', async (t) => {
  const a = await t0.tenant();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await publish(a.tenantId, 'scan.progress', { scan_id: 's', progress: i, phase: 'p' }));
  // Keep publishing while the client connects, so the replay/live seam is crossed under load.
  const more = (async () => {
    for (let i = 5; i < 60; i++) ids.push(await publish(a.tenantId, 'scan.progress', { scan_id: 's', progress: i, phase: 'p' }));
  })();
  const client = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${a.token}`, 'last-event-id': ids[1]! });
  await more;
  const lastId = ids[ids.length - 1]!;
  await client.waitFor((m) => m.some((x) => x.id === lastId));
  const got = platform(client.messages).map((m) => m.id);
  t.deepEqual(got, ids.slice(2));
  t.deepEqual(platform(client.messages).map((m) => JSON.parse(m.data).progress), Array.from({ length: 58 }, (_, i) => i + 2));
  client.close();
});

test('replay honours the tenant, the filters and the 5-minute buffer', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const now = Date.now();
  const first = await publish(a.tenantId, 'system.alert', { alert_type: 'start', message: 'x' });
  // An event of this tenant older than the replay window, and one of another tenant.
  await eventRepository.append(t0.ctx.db, { tenantId: a.tenantId, kind: 'finding.new', data: { finding_id: 'too-old' } }, now - t0.config.stream.replayWindowMs - 60_000);
  await publish(b.tenantId, 'finding.new', { finding_id: 'other-tenant' });
  const keep = await publish(a.tenantId, 'finding.new', { finding_id: 'kept' });
  await publish(a.tenantId, 'scan.progress', { scan_id: 's', progress: 1, phase: 'p' });
  const client = await openSse(`${base}/api/events/stream?events=finding.new`, { authorization: `Bearer ${a.token}`, 'last-event-id': first });
  await client.waitFor((m) => platform(m).length >= 1);
  const live = await publish(a.tenantId, 'finding.new', { finding_id: 'live' });
  await client.waitFor((m) => m.some((x) => x.id === live));
  t.deepEqual(platform(client.messages).map((m) => [m.id, JSON.parse(m.data).finding_id]), [[keep, 'kept'], [live, 'live']]);
  client.close();
});

test('a malformed Last-Event-ID means no replay, not an error', async (t) => {
  const a = await t0.tenant();
  await publish(a.tenantId, 'system.alert', { alert_type: 'before', message: 'x' });
  const client = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${a.token}`, 'last-event-id': 'abc' });
  t.is(client.statusCode, 200);
  await client.waitFor((m) => m.length >= 1);
  const live = await publish(a.tenantId, 'system.alert', { alert_type: 'after', message: 'y' });
  await client.waitFor((m) => m.some((x) => x.id === live));
  t.deepEqual(platform(client.messages).map((m) => JSON.parse(m.data).alert_type), ['after']);
  client.close();
});

// Serial (ava runs serial tests before the others): the hub's size counts every open client
// of this file, and a client another test opened meanwhile hid the one that left.
test.serial('a closed client is unsubscribed from the hub', async (t) => {
  const a = await t0.tenant();
  const before = t0.ctx.streamHub.size;
  const client = await openSse(`${base}/api/events/stream`, { authorization: `Bearer ${a.token}` });
  await client.waitFor((m) => m.length >= 1);
  t.is(t0.ctx.streamHub.size, before + 1);
  client.close();
  await eventually(async () => t0.ctx.streamHub.size === before, 10_000);
  t.is(t0.ctx.streamHub.size, before);
});
