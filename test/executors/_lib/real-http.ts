// A real `ctx.http` for executor integration tests: the platform's own SSRF-guarded
// client, trusting the shared test CA and allowed onto loopback as config/test.json does.
import type { ExecutorHttp } from '../../../core/plugin-api/index.ts';
import { OutboundHttpClient } from '../../../core/outbound/http-client.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';

export interface RealHttp {
  client: OutboundHttpClient;
  /** For `mockExecutorContext({http})`: every request goes out for real. */
  respond: (req: Parameters<ExecutorHttp['request']>[0]) => ReturnType<ExecutorHttp['request']>;
}

export async function realHttp(options: { allowLoopback?: boolean; requireHttps?: boolean } = {}): Promise<RealHttp> {
  const { ca } = await sharedTestCertificates();
  const client = new OutboundHttpClient({
    requireHttps: options.requireHttps ?? true,
    allowPrivateCidrs: options.allowLoopback === false ? [] : ['127.0.0.0/8', '::1/128'],
    caCerts: [ca.certPem],
    connectTimeoutMs: 5000,
    defaultTimeoutMs: 10_000,
    maxConnectionsPerOrigin: 4,
    maxResponseBytes: 65_536,
    userAgent: 'rampart-test',
  });
  return { client, respond: (req) => client.request(req) };
}
