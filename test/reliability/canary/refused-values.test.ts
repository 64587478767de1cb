// A refused value can be a secret (a webhook signing secret with a space in it): the 400
// names the field and the rule it broke, never the value. joi's own pattern messages quote
// the value ("secret with value … fails to match"); core/http/validation.ts drops it.
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const SECRET = 'Cnry-refused-7Gk/q+Z=pT2!xW';

test('a webhook secret refused by its pattern is not echoed; the field and the rule are named', async (t) => {
  for (const [url, payload] of [
    ['/api/webhooks', { name: 'w', url: 'https://127.0.0.1:9/x', events: ['*'], secret: `${SECRET} space` }],
    ['/api/webhooks', { name: 'w', url: 'https://127.0.0.1:9/x', events: ['*'], secret: `${SECRET}\u0000` }],
  ] as const) {
    const res = await app.request('POST', url, { payload });
    t.is(res.statusCode, 400, res.raw);
    t.is(res.body.error.code, 'validation_failed');
    t.false(res.raw.includes(SECRET), res.raw);
    t.false(res.raw.includes(encodeURIComponent(SECRET)), res.raw);
    t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field), ['secret']);
    t.regex(res.body.error.details[0].message, /^secret fails to match the pattern \//);
  }
});

test('custom pattern messages are kept as written', async (t) => {
  const res = await app.request('POST', '/api/credentials', { payload: { name: 'bad name!', value: 'long enough value' } });
  t.is(res.statusCode, 400, res.raw);
  t.is(res.body.error.details[0].message, 'name must be 1-100 of A-Z a-z 0-9 _ . -');
});
