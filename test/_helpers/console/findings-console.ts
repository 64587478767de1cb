import { launchBrowser, type ConsoleBrowser } from './browser.ts';
import { seedFindings, seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from './console-server.ts';

export interface FindingsConsole {
  server: ConsoleServer;
  browser: ConsoleBrowser;
  tenant: SeededTenant;
  seeded: Awaited<ReturnType<typeof seedFindings>>;
  stop(): Promise<void>;
}

/**
 * The setup of the findings browser tests (test/console/findings.test.ts and
 * findings-triage.test.ts, two files so that ava runs them side by side): a Rampart whose
 * exports above 12 findings run in the background (so both kinds are exercised), a browser,
 * and a tenant with 30 findings over three assets, two of them resolved and one confirmed.
 */
export async function startFindingsConsole(): Promise<FindingsConsole> {
  const [server, browser] = await Promise.all([startConsoleServer({ RAMPART__exports__syncMaxRows: '12' }), launchBrowser()]);
  const tenant = await seedTenant(server);
  const seeded = await seedFindings(server, tenant.token, 30);
  for (const [i, status] of [[1, 'resolved'], [6, 'resolved'], [2, 'confirmed']] as const) {
    await server.call(tenant.token, 'PUT', `/api/findings/${seeded.findings[i]!.id}/status`, { status });
  }
  return {
    server, browser, tenant, seeded,
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}
