import test from 'ava';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAgentOptions, tokenFileIsShared } from '../../agent/agent-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'rampart-agent-opts-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

test('the token comes from the environment, a file or (discouraged) argv, in that order of preference', (t) => {
  t.like(parseAgentOptions(['--url', 'https://rampart.example/'], { RAMPART_AGENT_TOKEN: 'rmpa_env' }), { url: 'https://rampart.example', token: 'rmpa_env', tokenSource: 'env', concurrency: 1, waitSeconds: 25 });
  const file = join(dir, 'token');
  writeFileSync(file, 'rmpa_file\n', { mode: 0o600 });
  t.like(parseAgentOptions(['--url', 'http://x', '--token-file', file], { RAMPART_AGENT_TOKEN: 'rmpa_env' }), { token: 'rmpa_file', tokenSource: 'file' });
  t.false(tokenFileIsShared(file));
  chmodSync(file, 0o644);
  t.true(tokenFileIsShared(file));
  t.like(parseAgentOptions(['--url', 'http://x', '--token=rmpa_argv'], {}), { token: 'rmpa_argv', tokenSource: 'argv' });
});

test('bad options are refused with a message naming them', (t) => {
  for (const [argv, env, message] of [
    [['--url', 'http://x'], {}, /no agent token/],
    [['--url', 'ftp://x'], { RAMPART_AGENT_TOKEN: 'a' }, /--url/],
    [['--url', 'http://x', '--concurrency', '0'], { RAMPART_AGENT_TOKEN: 'a' }, /--concurrency/],
    [['--url', 'http://x', '--wait-seconds', '31'], { RAMPART_AGENT_TOKEN: 'a' }, /--wait-seconds/],
    [['--url', 'http://x', '--token', 'a', '--token-file', '/nope'], {}, /once/],
    [['--url', 'http://x', '--token-file', join(dir, 'missing')], {}, /cannot read/],
    [['--url', 'http://x', '--bogus'], { RAMPART_AGENT_TOKEN: 'a' }, /bogus/],
  ] as const) {
    t.throws(() => parseAgentOptions([...argv], env), { message });
  }
});
