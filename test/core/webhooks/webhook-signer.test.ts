import test from 'ava';
import { readFileSync } from 'node:fs';
import { hexBodySignature, signatureHeaders, standardWebhooksSignature } from '../../../core/webhooks/webhook-signer.ts';
import { verifyHexSignature, verifyStandardWebhook } from '../../_helpers/parsers/webhook-verify.ts';

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/webhook-signature-vectors.json', import.meta.url), 'utf8'));

test('Standard Webhooks signature matches the official vector', (t) => {
  const v = vectors.standard_webhooks;
  t.is(standardWebhooksSignature(v.secret, v.id, v.ts, v.body), v.signature);
});

test('the hex body signature matches the GitHub X-Hub-Signature-256 vector', (t) => {
  const v = vectors.github_x_hub_signature_256;
  t.is(hexBodySignature(v.secret, v.body), v.header);
});

test('signatureHeaders: headers of the vector, verifiable by an independent receiver', (t) => {
  const v = vectors.standard_webhooks;
  const headers = signatureHeaders({ secrets: [v.secret], messageId: v.id, timestampSeconds: v.ts, body: v.body, headerName: 'X-SVC-Signature' });
  t.like(headers, v.headers);
  t.true(verifyHexSignature(v.secret, v.body, headers['X-SVC-Signature']));
  t.true(verifyStandardWebhook(v.secret, v.body, headers));
  t.false(verifyStandardWebhook(v.secret, `${v.body} `, headers));
});

test('a non-whsec secret keys Standard Webhooks with its UTF-8 bytes', (t) => {
  const sig = standardWebhooksSignature('plain-secret-of-24-chars', 'msg_1', 1700000000, '{}');
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': sig };
  t.true(verifyStandardWebhook('plain-secret-of-24-chars', '{}', headers));
});

test('during rotation both secrets sign; without a secret only id and timestamp are sent', (t) => {
  const body = '{"a":1}';
  const headers = signatureHeaders({ secrets: ['new-secret-0123456789', 'old-secret-0123456789'], messageId: 'dlv_x', timestampSeconds: 1, body, headerName: 'X-SVC-Signature' });
  t.is(headers['webhook-signature']!.split(' ').length, 2);
  t.true(verifyStandardWebhook('new-secret-0123456789', body, headers));
  t.true(verifyStandardWebhook('old-secret-0123456789', body, headers));
  t.true(verifyHexSignature('new-secret-0123456789', body, headers['X-SVC-Signature']));
  t.true(verifyHexSignature('old-secret-0123456789', body, headers['X-SVC-Signature-Previous']));
  const unsigned = signatureHeaders({ secrets: [], messageId: 'dlv_x', timestampSeconds: 1, body, headerName: 'X-SVC-Signature' });
  t.deepEqual(Object.keys(unsigned).sort(), ['webhook-id', 'webhook-timestamp']);
});
