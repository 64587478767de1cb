// @ts-check
import { useEffect, useState } from 'preact/hooks';

/**
 * A hash router: `/console#/findings?severity=high&status=open`. The part after `#` never
 * reaches the server, so /console is the only HTML route, and a view (filters included)
 * is a link that can be shared. Pages read and write their filters as the query.
 *
 * @typedef {{ path: string, params: Record<string, string>, query: Record<string, string> }} Location
 */

/** @param {string} hash */
export function parseHash(hash) {
  const raw = hash.replace(/^#/, '') || '/';
  const at = raw.indexOf('?');
  const path = (at < 0 ? raw : raw.slice(0, at)) || '/';
  const query = Object.fromEntries(new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)));
  return { path: path.startsWith('/') ? path : `/${path}`, query };
}

/**
 * `/findings/:id` against `/findings/fnd_1` → {id: 'fnd_1'}; null when it does not match.
 * @param {string} pattern
 * @param {string} path
 * @returns {Record<string, string> | null}
 */
export function matchPath(pattern, path) {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  /** @type {Record<string, string>} */
  const params = {};
  for (let i = 0; i < want.length; i++) {
    const part = /** @type {string} */ (want[i]);
    const value = /** @type {string} */ (got[i]);
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(value);
      } catch {
        return null;
      }
    } else if (part !== value) return null;
  }
  return params;
}

/**
 * The link to a path with a query; empty values are left out.
 * @param {string} path
 * @param {Record<string, unknown>} [query]
 */
export function href(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

/**
 * Goes to a path. `replace` changes the current history entry instead of adding one
 * (typing in a filter should not fill the back button).
 * @param {string} path
 * @param {Record<string, unknown>} [query]
 * @param {{ replace?: boolean }} [options]
 */
export function navigate(path, query = {}, options = {}) {
  const target = href(path, query);
  if (target === location.hash) return;
  if (options.replace) {
    history.replaceState(history.state, '', target);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = target;
  }
}

/**
 * Merges `patch` into the current query (null/'' removes a key) and replaces the entry.
 * @param {Record<string, unknown>} patch
 */
export function updateQuery(patch) {
  const { path, query } = parseHash(location.hash);
  navigate(path, { ...query, ...patch }, { replace: true });
}

/** The current path and query; re-renders on every hash change. */
export function useHash() {
  const [state, setState] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setState(parseHash(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return state;
}

/**
 * The first route whose pattern matches, with its params.
 * @template {{ path: string }} R
 * @param {readonly R[]} routes
 * @param {string} path
 * @returns {{ route: R, params: Record<string, string> } | null}
 */
export function resolve(routes, path) {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}
