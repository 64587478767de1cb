import { createServer, type Server } from 'node:http';
import { launchBrowser, type ConsoleBrowser } from './browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from './console-server.ts';

/** What the loopback site serves: the verification meta tag once it is known; `hang` makes it never answer. */
export interface SiteState { token: string; hang: boolean }

export interface AssetSiteConsole {
  server: ConsoleServer;
  browser: ConsoleBrowser;
  tenant: SeededTenant;
  /** The loopback site the `url` asset points at. */
  site: Server;
  siteUrl: string;
  siteState: SiteState;
  stop(): Promise<void>;
}

/**
 * The setup of the assets and scans browser tests (test/console/assets-scans.test.ts and
 * scans.test.ts, two files so that ava runs them side by side): a loopback site, a Rampart and
 * a browser, and a tenant with four assets (two domains, an IP and the site's URL), tagged `seed`.
 */
export async function startAssetSiteConsole(): Promise<AssetSiteConsole> {
  const siteState: SiteState = { token: '', hang: false };
  const site = createServer((req, res) => {
    if (siteState.hang) return; // never answers: keeps a web scan busy until it is cancelled
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><html><head><title>site</title>${siteState.token ? `<meta name="rampart-verification" content="${siteState.token}">` : ''}</head><body>hello</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  const [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
  const tenant = await seedTenant(server);
  for (const [name, type] of [['alpha.example.com', 'domain'], ['beta.example.org', 'domain'], ['192.0.2.10', 'ip'], [siteUrl, 'url']]) {
    await server.call(tenant.token, 'POST', '/api/assets', { name, type, tags: ['seed'] });
  }
  return {
    server, browser, tenant, site, siteUrl, siteState,
    async stop() {
      await browser.close();
      await server.stop();
      site.closeAllConnections();
      site.close();
    },
  };
}
