// @ts-check
import { h } from 'preact';
import htm from 'htm';

/**
 * Markup for preact without a build step: html`<p class="x">${text}</p>`. Interpolated
 * values are always text or components, never parsed as markup, so API data cannot inject
 * HTML (and the CSP's Trusted Types rule forbids innerHTML anyway).
 */
export const html = /** @type {(strings: TemplateStringsArray, ...values: any[]) => import('preact').VNode<any>} */ (htm.bind(h));
