import test from 'ava';
import { approvalMessage } from '../../../core/action-runs/approval-request.ts';
import type { ActionVersion } from '../../../core/actions/action-version.ts';

const action = (message?: string) => ({ name: 'block-ip', config: message === undefined ? {} : { message } }) as unknown as ActionVersion;

test('the message template is filled with parameters; secrets are masked, missing ones named, non-strings as JSON', (t) => {
  const template = 'Block {{ ip }} ({{count}} hits, tags {{ tags }}) with key {{ api_key }}; ticket {{ ticket }}';
  const message = approvalMessage(action(template), { ip: '203.0.113.9', count: 3, tags: ['edge', 'prod'], api_key: 'sk_live_canary' }, ['api_key']);
  t.is(message, 'Block 203.0.113.9 (3 hits, tags ["edge","prod"]) with key ********; ticket (not given)');
  t.false(message.includes('sk_live_canary'));
});

test('without a template the message names the action; a value holding braces is not rendered again', (t) => {
  t.is(approvalMessage(action(), {}, []), 'Approve running block-ip');
  t.is(approvalMessage(action('Run on {{ host }}?'), { host: '{{ secret }}' }, ['secret']), 'Run on {{ secret }}?');
});
