import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Found by the two-instances load: findings written concurrently to one asset deadlocked
// on MariaDB (the key check of the insert takes a shared lock on the asset that the risk
// update then needs exclusively) and the loser answered 500. Two instances only make it
// likelier; one process with parallel requests shows it too.

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';

test('parallel findings on one asset all succeed, each with its event, and the asset risk counts them all', async (t) => {
  const { token } = await t0.tenant();
  const asset = (await t0.request('POST', '/api/assets', { token, payload: { name: 'busy.example.com', type: 'domain' } })).body.data;
  const statuses: number[] = [];
  for (let round = 0; round < 4; round++) {
    const batch = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t0.request('POST', '/api/findings', { token, payload: { asset_id: asset.id, title: `Parallel ${round}-${i}`, cvss_vector: VECTOR } })),
    );
    statuses.push(...batch.map((r) => r.statusCode));
  }
  t.deepEqual(statuses.filter((s) => s !== 201), []);
  const read = (await t0.request('GET', `/api/assets/${asset.id}`, { token })).body.data;
  t.is(read.finding_summary.high, 48);
});
