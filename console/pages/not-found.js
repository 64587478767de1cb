// @ts-check
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';

/** @param {import('../app/routes.js').PageProps} _props */
export default function NotFound(_props) {
  return html`
    <h1 tabindex="-1">Page not found</h1>
    <p>There is no console page at this address. <a href=${href('/')}>Go to the overview</a>.</p>
  `;
}
