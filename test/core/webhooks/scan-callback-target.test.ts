// A scan callback as a target of the webhook queue: the stored body as is, the scan's own
// secret (sealed for that scan only), no custom headers, its own timeout and schedule.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../config/load-config.ts';
import { SecretBox } from '../../../core/secrets/secret-box.ts';
import { callbackRetryDelayMs, callbackSecretContext, callbackTarget } from '../../../core/webhooks/scan-callback-target.ts';
import { signingKey } from '../../../core/webhooks/webhook-signer.ts';

const box = new SecretBox(randomBytes(32));
const webhooks = { ...loadConfig({ env: { NODE_ENV: 'test' } }).webhooks, requestTimeoutMs: 20_000, signatureHeader: 'X-Custom-Sig' };
const settings = { requestTimeoutMs: 30_000, retryScheduleSeconds: [60, 300] };
const row = (scanId: string, secret: string | null) => ({ scan_id: scanId, target_url: 'https://hooks.example/cb?t=1', secret_sealed: secret === null ? null : box.seal(secret, callbackSecretContext(scanId)) });

test('the target is the callback URL, keyed with the scan\'s secret, the body sent as stored', (t) => {
  const target = callbackTarget(box, row('scn_a', 'whsec_c2VjcmV0'), settings, webhooks);
  t.is(target.url, 'https://hooks.example/cb?t=1');
  t.deepEqual(target.keys, [signingKey('whsec_c2VjcmV0')]);
  t.deepEqual(target.headers, {});
  t.is(target.render('{"event":"scan.completed"}'), '{"event":"scan.completed"}');
  t.is(target.signatureHeader, 'X-Custom-Sig');
  t.is(target.timeoutMs, 20_000, 'at most the webhooks\' timeout, which the queue\'s lease is sized for');
  t.is(callbackTarget(box, row('scn_a', null), { ...settings, requestTimeoutMs: 5_000 }, webhooks).timeoutMs, 5_000);
  t.deepEqual(callbackTarget(box, row('scn_a', null), settings, webhooks).keys, [], 'no secret: unsigned');
});

test('a secret sealed for another scan does not open, and a row without a scan is no callback', (t) => {
  const other = { ...row('scn_a', 'secret'), scan_id: 'scn_b' };
  t.throws(() => callbackTarget(box, other, settings, webhooks));
  t.throws(() => callbackTarget(box, { scan_id: null, target_url: null, secret_sealed: null }, settings, webhooks), { message: /no scan callback/ });
});

test('the schedule: the n-th entry after the n-th failure, then none', (t) => {
  t.is(callbackRetryDelayMs(settings, 0), 60_000);
  t.is(callbackRetryDelayMs(settings, 1), 300_000);
  t.is(callbackRetryDelayMs(settings, 2), null);
  t.is(callbackRetryDelayMs({ ...settings, retryScheduleSeconds: [] }, 0), null);
});
