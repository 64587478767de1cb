// @ts-check
import { html } from '../lib/html.js';

/**
 * @typedef {{ name: string, type: string, required?: boolean, default?: unknown, validation?: { min?: number, max?: number, pattern?: string }, credential?: string, description?: string }} ParameterSpec
 */

/** The form's text for a parameter's default (what the field starts with). */
export function initialValues(/** @type {ParameterSpec[]} */ specs) {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const p of specs) {
    if (p.type === 'secret') values[p.name] = '';
    else if (p.type === 'boolean') values[p.name] = p.default === true;
    else if (p.type === 'string[]') values[p.name] = Array.isArray(p.default) ? p.default.join('\n') : '';
    else values[p.name] = p.default === undefined || p.default === null ? '' : String(p.default);
  }
  return values;
}

/**
 * The trigger's `parameters` from the form: typed as the definition says; empty optional
 * fields are left out (the action's default applies). Secret parameters are never part of
 * it: the API refuses a value for them, they come from the credential store.
 * @param {ParameterSpec[]} specs
 * @param {Record<string, string | boolean>} values
 */
export function parametersOf(specs, values) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const p of specs) {
    const v = values[p.name];
    if (p.type === 'secret') continue;
    if (p.type === 'boolean') {
      out[p.name] = v === true;
      continue;
    }
    const text = String(v ?? '');
    if (text.trim() === '') continue;
    if (p.type === 'integer' || p.type === 'number') out[p.name] = Number(text);
    else if (p.type === 'string[]') out[p.name] = text.split('\n').map((s) => s.trim()).filter(Boolean);
    else out[p.name] = text;
  }
  return out;
}

/** The credential a secret parameter reads (its `credential`, else its own name). */
export function credentialOf(/** @type {ParameterSpec} */ p) {
  return p.credential ?? p.name;
}

/**
 * One labelled control per parameter, generated from the definition: numbers as number
 * fields with their bounds, booleans as checkboxes, lists as one item per line, secrets as
 * password fields that set the credential (never filled in, never shown back).
 * @param {{ specs: ParameterSpec[], values: Record<string, string | boolean>, onChange: (values: Record<string, string | boolean>) => void, idPrefix: string, canSetSecrets: boolean }} props
 */
export function ParameterFields({ specs, values, onChange, idPrefix, canSetSecrets }) {
  if (!specs.length) return html`<p class="hint">This action takes no parameters.</p>`;
  const set = (/** @type {string} */ name, /** @type {string | boolean} */ value) => onChange({ ...values, [name]: value });
  return html`<div class="filters param-fields">${specs.map((p) => {
    const id = `${idPrefix}-${p.name}`;
    const hintId = `${id}-hint`;
    const bounds = p.validation ?? {};
    const hint = [p.description, p.required ? 'required' : 'optional', bounds.pattern ? `pattern ${bounds.pattern}` : null].filter(Boolean).join(' · ');
    if (p.type === 'boolean') {
      return html`<div><label class="inline" for=${id}><input id=${id} type="checkbox" checked=${values[p.name] === true} onChange=${(/** @type {any} */ e) => set(p.name, e.currentTarget.checked)} /> ${p.name}</label><p class="hint" id=${hintId}>${hint}</p></div>`;
    }
    if (p.type === 'secret') {
      return html`<div><label for=${id}>${p.name} (secret, from credential <code>${credentialOf(p)}</code>)</label>
        <input id=${id} type="password" autocomplete="new-password" disabled=${!canSetSecrets} value=${String(values[p.name] ?? '')} aria-describedby=${hintId} onInput=${(/** @type {any} */ e) => set(p.name, e.currentTarget.value)} />
        <p class="hint" id=${hintId}>${canSetSecrets ? 'Leave empty to use the stored value; a value typed here replaces the credential first and is never shown again.' : 'The stored credential is used (setting it needs the integrations:manage scope).'}</p></div>`;
    }
    if (p.type === 'string[]') {
      return html`<div><label for=${id}>${p.name} (one per line)</label><textarea id=${id} rows="3" required=${Boolean(p.required)} aria-describedby=${hintId} value=${String(values[p.name] ?? '')} onInput=${(/** @type {any} */ e) => set(p.name, e.currentTarget.value)}></textarea><p class="hint" id=${hintId}>${hint}</p></div>`;
    }
    const numeric = p.type === 'integer' || p.type === 'number';
    return html`<div><label for=${id}>${p.name}</label>
      <input id=${id} type=${numeric ? 'number' : 'text'} step=${p.type === 'integer' ? '1' : numeric ? 'any' : undefined}
        min=${numeric ? bounds.min : undefined} max=${numeric ? bounds.max : undefined}
        minlength=${!numeric ? bounds.min : undefined} maxlength=${!numeric ? bounds.max : undefined}
        required=${Boolean(p.required)} aria-describedby=${hintId} value=${String(values[p.name] ?? '')} onInput=${(/** @type {any} */ e) => set(p.name, e.currentTarget.value)} />
      <p class="hint" id=${hintId}>${hint}</p></div>`;
  })}</div>`;
}
