// @ts-check
import { useState } from 'preact/hooks';
import { routes } from '../app/routes.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { missingScope } from '../lib/session.js';
import { StreamStatus } from './stream-status.js';

/**
 * @param {{ route: import('../app/routes.js').Route, currentPath: string }} props
 */
function NavItem({ route, currentPath }) {
  const missing = missingScope(route.scopes);
  if (missing) {
    return html`<li><span class="nav-disabled" aria-disabled="true">${route.nav} <small>(needs ${missing})</small></span></li>`;
  }
  const active = route.path === '/' ? currentPath === '/' : currentPath === route.path || currentPath.startsWith(`${route.path}/`);
  return html`<li><a href=${href(route.path)} aria-current=${active ? 'page' : undefined}>${route.nav}</a></li>`;
}

/**
 * The signed-in frame: top bar (tenant, live-stream state, sign out), the main navigation
 * (a "Menu" button opens it on narrow screens), and the page.
 * @param {{ me: import('../lib/session.js').WhoAmI, currentPath: string, onSignOut: () => void, children: any }} props
 */
export function Layout({ me, currentPath, onSignOut, children }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const skip = (/** @type {Event} */ event) => {
    event.preventDefault();
    document.getElementById('main')?.focus();
  };
  return html`
    <a class="skip-link" href="#main" onClick=${skip}>Skip to content</a>
    <header class="topbar">
      <span class="brand">Rampart</span>
      <span class="tenant" title="Tenant">${me.tenant.name} <small>(${me.tenant.tier})</small></span>
      <${StreamStatus} />
      <span class="who">${me.token.kind === 'login' ? 'Signed in' : 'API token'}: ${me.token.name}</span>
      <button type="button" class="menu-toggle" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="main-nav" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      <button type="button" class="sign-out" onClick=${onSignOut}>Sign out</button>
    </header>
    <div class="frame">
      <nav id="main-nav" class=${menuOpen ? 'mainnav open' : 'mainnav'} aria-label="Main" onClick=${() => setMenuOpen(false)}>
        <ul>${routes.filter((r) => r.nav).map((r) => html`<${NavItem} key=${r.path} route=${r} currentPath=${currentPath} />`)}</ul>
      </nav>
      <main id="main" tabindex="-1">${children}</main>
    </div>
  `;
}
