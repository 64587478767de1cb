// @ts-check
import { render } from 'preact';
import { html } from '../lib/html.js';
import { restoreSession } from '../lib/session.js';
import { App } from './app.js';

/** Entry point (loaded by /console): check a session kept in this tab, then mount the app. */
const root = /** @type {HTMLElement} */ (document.getElementById('app'));
root.textContent = '';
render(html`<${App} />`, root);
void restoreSession();
