// A scanner for the crash harness: three checks, each one HTTP request to the target
// (so the target counts how often each check ran) and one finding. The target holds
// `/held` until told otherwise: a worker can be killed while that check is in flight.
const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';

const check = (name) => ({
  id: `crash:${name}`,
  title: `Requests /${name}`,
  category: 'crash',
  maxSeverity: 'medium',
  async run(ctx, target) {
    const url = new URL(`/${name}`, target.url).href;
    const res = await ctx.http.request({ url, method: 'GET', timeoutMs: 60_000 });
    ctx.report({ title: `Crash finding ${name}`, cvss_vector: vector, description: `answered ${res.statusCode}`, location: url });
  },
});

export default {
  kind: 'scanner',
  name: 'crash',
  version: '1.0.0',
  apiVersion: '^1.2.0',
  description: 'Crash harness scanner',
  capabilities: ['net:outbound'],
  scanTypes: ['web_app'],
  assetTypes: ['url'],
  checks: [check('before'), check('held'), check('after')],
};
