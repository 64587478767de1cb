import { createHash } from 'node:crypto';
import { importMap, scriptHash } from './console-assets.ts';

export interface ConsolePage {
  html: string;
  etag: string;
  /** The Content-Security-Policy sent with every console response. */
  csp: string;
}

/**
 * The console's one HTML document. It holds no data and no inline code besides the import
 * map (a browser reads import maps only inline; the CSP allows that one script by hash).
 * The shell mounts into #app; until the modules load, the noscript text and the
 * "Loading" line are all a user sees.
 */
export function consolePage(version: string): ConsolePage {
  const map = importMap();
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${scriptHash(map)}`,
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="rampart-version" content="${version.replace(/[^0-9A-Za-z.+-]/g, '')}">
  <title>Rampart console</title>
  <link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/console/vendor/uplot.css">
  <link rel="stylesheet" href="/console/styles/console.css">
  <script type="importmap">${map}</script>
  <script type="module" src="/console/app/main.js"></script>
</head>
<body>
  <div id="app"><p class="boot">Loading the Rampart console…</p></div>
  <noscript><p class="boot">The Rampart console needs JavaScript. Everything it does is also available through the REST API: see /docs.</p></noscript>
</body>
</html>
`;
  const etag = createHash('sha256').update(html).digest('base64url').slice(0, 27);
  return { html, etag, csp };
}
