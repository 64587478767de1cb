import test from 'ava';
import { loadConfig } from '../../config/load-config.ts';
import { safetySwitchesOff } from '../../config/safety-switches.ts';

test('the defaults have every safety switch on', (t) => {
  t.deepEqual(safetySwitchesOff(loadConfig({ env: {} })), []);
});

test('each switch turned off is named with its value and what it allows', (t) => {
  const config = loadConfig({
    env: {
      RAMPART__scans__denySelf: 'false',
      RAMPART__scans__requireVerifiedAsset: 'false',
      RAMPART__scans__denyNetworks: '[]',
      RAMPART__verification__denyNetworks: '[]',
      RAMPART__outbound__requireHttps: 'false',
      RAMPART__outbound__allowPrivateCidrs: '["10.0.0.0/8"]',
      RAMPART__rateLimit__enabled: 'false',
    },
  });
  t.deepEqual(safetySwitchesOff(config).map((s) => `${s.key}=${s.value}`), [
    'scans.denySelf=false',
    'scans.requireVerifiedAsset=false',
    'scans.denyNetworks=[]',
    'verification.denyNetworks=[]',
    'outbound.requireHttps=false',
    'outbound.allowPrivateCidrs=["10.0.0.0/8"]',
    'rateLimit.enabled=false',
  ]);
  t.regex(safetySwitchesOff(config).find((s) => s.key === 'outbound.allowPrivateCidrs')!.risk, /10\.0\.0\.0\/8/);
  const endpoint = loadConfig({ env: { RAMPART__rateLimit__endpointLimits: 'false' } });
  t.deepEqual(safetySwitchesOff(endpoint).map((s) => s.key), ['rateLimit.endpointLimits']);
});

test('the trial profile turns off exactly the four it documents', (t) => {
  t.deepEqual(safetySwitchesOff(loadConfig({ env: { RAMPART_PROFILE: 'trial' } })).map((s) => s.key), [
    'scans.denySelf',
    'scans.requireVerifiedAsset',
    'outbound.requireHttps',
    'outbound.allowPrivateCidrs',
  ]);
});
