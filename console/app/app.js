// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { Layout } from '../components/layout.js';
import { Loading } from '../components/ui.js';
import { html } from '../lib/html.js';
import { resolve, useHash } from '../lib/router.js';
import { can, endSession, missingScope, session, signOut } from '../lib/session.js';
import { useStore } from '../lib/store.js';
import SignIn from '../pages/sign-in.js';
import { startLiveStream, stopLiveStream } from './live.js';
import { notFoundRoute, routes } from './routes.js';

/**
 * Loads a route's module (pages are loaded when first visited) and renders it.
 * @param {{ route: import('./routes.js').Route, params: Record<string, string>, query: Record<string, string> }} props
 */
function RoutePage({ route, params, query }) {
  const [loaded, setLoaded] = useState(/** @type {{ route: any, Page: any } | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    let live = true;
    setError(null);
    route.load().then(
      (module) => live && setLoaded({ route, Page: module.default }),
      (err) => live && setError(err),
    );
    return () => void (live = false);
  }, [route]);
  if (error) return html`<${ErrorBox} error=${error} action="load this page" onRetry=${() => location.reload()} />`;
  if (!loaded || loaded.route !== route) return html`<${Loading} />`;
  const missing = missingScope(route.scopes);
  if (missing) {
    return html`<h1 tabindex="-1">${route.title}</h1><p class="notice">This page needs the <code>${missing}</code> scope, which your token does not have. Ask an administrator for a token that has it.</p>`;
  }
  const Page = loaded.Page;
  return html`<${Page} params=${params} query=${query} />`;
}

/** The signed-in console: the route for the current hash, inside the layout. */
function Console({ me }) {
  const { path, query } = useHash();
  const match = resolve(routes, path);
  const route = match?.route ?? notFoundRoute;
  const mainFocus = useRef(path);

  useEffect(() => {
    document.title = `${route.title} · Rampart`;
    // A new page: move focus to its start, so keyboard and screen-reader users land on it.
    if (mainFocus.current !== path) document.getElementById('main')?.focus();
    mainFocus.current = path;
  }, [path, route]);

  return html`
    <${Layout} me=${me} currentPath=${path} onSignOut=${() => void signOut()}>
      <${RoutePage} key=${route.path} route=${route} params=${match?.params ?? {}} query=${query} />
    <//>
  `;
}

/** The root: sign-in until there is a session, then the console; the live stream follows the session. */
export function App() {
  const state = useStore(session);
  const meId = state.me?.token.id ?? null;
  useEffect(() => {
    if (state.status === 'signed-in' && can('events:read')) {
      startLiveStream({ onUnauthorized: (error) => endSession(`You were signed out: the API refused the token (${error.code}). Sign in again.`) });
    } else {
      stopLiveStream();
    }
  }, [state.status, meId]);
  useEffect(() => {
    if (state.status !== 'checking') document.getElementById('app')?.setAttribute('data-ready', state.status);
  }, [state.status]);

  if (state.status === 'checking') return html`<${Loading} label="Checking your session…" />`;
  if (state.status === 'signed-out' || !state.me) return html`<${SignIn} notice=${state.notice} />`;
  return html`<${Console} me=${state.me} />`;
}
